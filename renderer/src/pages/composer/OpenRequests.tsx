import { useState, type KeyboardEvent } from 'react';
import { changedSinceSaved, savedRequestAt, useCollectionsStore } from '../../state/collections-store';
import { isBlank, useComposerStore, type OpenRequest } from '../../state/composer-store';

/** The tab panel the open requests' tabs control: the request and its response. */
export const OPEN_REQUEST_PANEL = 'composer-open-request';
export const tabIdOf = (id: string) => `open-request-${id}`;

/** A tab's name: the saved request's, else its method and where it goes (without the scheme), else "New request". */
function labelOf({ draft, savedAs }: OpenRequest): string {
  if (savedAs) return savedAs.name;
  const target = draft.target.trim().replace(/^https?:\/\//i, '');
  return target === '' ? 'New request' : target;
}

/**
 * The requests open in the Composer, one tab each, kept across restarts. Arrows move between them, Delete closes one
 * (asking first when it has changes no file holds), and New request opens a blank one.
 */
export function OpenRequests() {
  const tabs = useComposerStore((state) => state.tabs);
  const activeTab = useComposerStore((state) => state.activeTab);
  const draft = useComposerStore((state) => state.draft);
  const savedAs = useComposerStore((state) => state.savedAs);
  const sending = useComposerStore((state) => state.sending);
  const { openTab, showTab, closeTab } = useComposerStore.getState();
  const view = useCollectionsStore((state) => state.view);
  const [confirming, setConfirming] = useState<string | null>(null);

  const shown = tabs.map((tab) => (tab.id === activeTab ? { ...tab, draft, savedAs } : tab));
  // Unsaved: a saved request that differs from its file, or a new one with anything in it.
  const unsaved = (tab: OpenRequest) =>
    tab.savedAs ? changedSinceSaved(tab.draft, savedRequestAt(view, tab.savedAs)) : !isBlank(tab.draft);
  const focusTab = (id: string) => requestAnimationFrame(() => document.getElementById(tabIdOf(id))?.focus());
  const close = (tab: OpenRequest) => {
    if (unsaved(tab) && confirming !== tab.id) return setConfirming(tab.id);
    setConfirming(null);
    closeTab(tab.id);
    focusTab(useComposerStore.getState().activeTab);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const at = shown.findIndex((tab) => tab.id === activeTab);
    if (event.key === 'Delete') {
      event.preventDefault();
      return close(shown[at]);
    }
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: shown.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const tab = shown[(next + shown.length) % shown.length];
    showTab(tab.id);
    focusTab(tab.id);
  };

  const asking = shown.find((tab) => tab.id === confirming);
  return (
    <div className="open-requests">
      <div className="open-request-tabs" role="tablist" aria-label="Open requests" onKeyDown={onKeyDown}>
        {shown.map((tab) => {
          const label = labelOf(tab);
          const active = tab.id === activeTab;
          return (
            <div key={tab.id} className={active ? 'open-request active' : 'open-request'}>
              <button
                type="button"
                role="tab"
                id={tabIdOf(tab.id)}
                aria-selected={active}
                aria-controls={OPEN_REQUEST_PANEL}
                aria-keyshortcuts="Delete"
                tabIndex={active ? 0 : -1}
                disabled={sending !== null && !active}
                title={sending !== null && !active ? 'A request is in flight: wait for its answer or cancel it' : `${tab.draft.method} ${tab.draft.target || label}`}
                onClick={() => showTab(tab.id)}
              >
                <span className="saved-method">{tab.draft.method}</span> <span className="tab-label">{label}</span>
                {unsaved(tab) && (
                  <span className="changed" aria-label="unsaved changes">
                    •
                  </span>
                )}
              </button>
              <button type="button" className="close-tab" tabIndex={-1} aria-label={`Close ${label}`} disabled={sending !== null && active} onClick={() => close(tab)}>
                ×
              </button>
            </div>
          );
        })}
      </div>
      <button type="button" className="small new-request" disabled={sending !== null} onClick={openTab}>
        + New request
      </button>
      {asking && (
        <div className="confirm" role="alertdialog" aria-label={`Close ${labelOf(asking)}?`}>
          <span>“{labelOf(asking)}” has changes no file holds: close it anyway?</span>{' '}
          <button type="button" className="small" autoFocus onClick={() => close(asking)}>
            Close without saving
          </button>{' '}
          <button
            type="button"
            className="small"
            onClick={() => {
              setConfirming(null);
              focusTab(activeTab);
            }}
          >
            Keep it open
          </button>
        </div>
      )}
    </div>
  );
}
