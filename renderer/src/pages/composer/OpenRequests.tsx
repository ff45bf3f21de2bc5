import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { TabCommand } from '../../../../shared/workbench/tab-keys';
import type { CollectionsView } from '../../../../shared/workbench/collection-contract';
import { changedSinceSaved, savedRequestAt, useCollectionsStore } from '../../state/collections-store';
import { isBlank, useComposerStore, type OpenRequest } from '../../state/composer-store';
import { tabKeyAria, tabKeyLabel, useOpenRequestKeys } from './open-request-keys';
import { OpenRequestsMenu } from './OpenRequestsMenu';

/** The tab panel the open requests' tabs control: the request and its response. */
export const OPEN_REQUEST_PANEL = 'composer-open-request';
export const tabIdOf = (id: string) => `open-request-${id}`;

/** A tab's name: the saved request's, else where it goes (without the scheme), else "New request". */
export function labelOf({ draft, savedAs }: OpenRequest): string {
  if (savedAs) return savedAs.name;
  const target = draft.target.trim().replace(/^https?:\/\//i, '');
  return target === '' ? 'New request' : target;
}

/** The mark of a request no file holds as it is; screen readers hear it as words. */
export function UnsavedMark() {
  return (
    <span className="changed" aria-label="unsaved changes">
      •
    </span>
  );
}

/** Unsaved: a saved request that differs from its file, or a new one with anything in it. */
const unsavedIn = (view: CollectionsView | null, tab: OpenRequest) =>
  tab.savedAs ? changedSinceSaved(tab.draft, savedRequestAt(view, tab.savedAs)) : !isBlank(tab.draft);

const focusTab = (id: string) => requestAnimationFrame(() => document.getElementById(tabIdOf(id))?.focus());

const IN_FLIGHT = 'A request is in flight: wait for its answer or cancel it';

interface TabProps {
  tab: OpenRequest;
  active: boolean;
  unsaved: boolean;
  /** Another tab's request is in flight: this one waits. */
  waiting: boolean;
  onShow: (id: string) => void;
  onClose: (tab: OpenRequest) => void;
}

/** The last two steps of a path ("…/cus_42/charges"): where requests to one service differ, and short enough for a narrow tab. */
function pathTail(path: string): string {
  const steps = path.split('/').filter(Boolean);
  return steps.length > 2 ? `…/${steps.slice(-2).join('/')}` : path;
}

/** Where a request goes, the end of its path first: many share a host and a start, and a narrow tab shows what tells them apart. */
function TabLabel({ label, saved }: { label: string; saved: boolean }) {
  const slash = saved ? -1 : label.indexOf('/');
  if (slash <= 0) return <span className="tab-label">{label}</span>;
  return (
    <span className="tab-label">
      {pathTail(label.slice(slash))} <span className="tab-host">{label.slice(0, slash)}</span>
    </span>
  );
}

/** One open request; only the tab whose request changed renders again as the user types. */
const OpenRequestTab = memo(function OpenRequestTab({ tab, active, unsaved, waiting, onShow, onClose }: TabProps) {
  const label = labelOf(tab);
  return (
    <div className={active ? 'open-request active' : 'open-request'}>
      <button
        type="button"
        role="tab"
        id={tabIdOf(tab.id)}
        aria-selected={active}
        aria-controls={OPEN_REQUEST_PANEL}
        aria-keyshortcuts={`Delete ${tabKeyAria('close')}`}
        tabIndex={active ? 0 : -1}
        disabled={waiting && !active}
        title={waiting && !active ? IN_FLIGHT : `${tab.draft.method} ${tab.draft.target || label}`}
        onClick={() => onShow(tab.id)}
      >
        <span className="saved-method">{tab.draft.method}</span> <TabLabel label={label} saved={tab.savedAs !== null} />
        {unsaved && <UnsavedMark />}
      </button>
      <button
        type="button"
        className="close-tab"
        tabIndex={-1}
        aria-label={`Close ${label}`}
        title={`Close (${tabKeyLabel('close')})`}
        disabled={waiting && active}
        onClick={() => onClose(tab)}
      >
        ×
      </button>
    </div>
  );
});

/** Asks before a request whose changes no file holds is closed; Escape keeps it open. */
function CloseQuestion({ tab, onClose, onKeep }: { tab: OpenRequest; onClose: () => void; onKeep: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  const label = labelOf(tab);
  return (
    <dialog ref={dialog} className="modal close-question" role="alertdialog" aria-label={`Close ${label}?`} onCancel={onKeep}>
      <p>“{label}” has changes no file holds: close it anyway?</p>
      <div className="modal-actions">
        <button type="button" autoFocus onClick={onKeep}>
          Keep it open
        </button>
        <button type="button" className="primary" onClick={onClose}>
          Close without saving
        </button>
      </div>
    </dialog>
  );
}

/** Moves the strip so the tab of `id` is wholly in it, and nothing else (the page stays where it is). */
function keepInView(strip: HTMLElement | null, id: string): void {
  const tab = document.getElementById(tabIdOf(id))?.parentElement;
  if (!strip || !tab) return;
  const room = strip.getBoundingClientRect();
  const box = tab.getBoundingClientRect();
  // A little of the neighbour shows, so the strip looks as if it goes on.
  const margin = 24;
  if (box.left < room.left) strip.scrollLeft -= room.left - box.left + margin;
  else if (box.right > room.right) strip.scrollLeft += box.right - room.right + margin;
}

/** A mouse wheel turned over the strip moves it sideways, as the strip has nowhere to go up or down. */
function useSidewaysWheel(strip: React.RefObject<HTMLDivElement | null>): void {
  useEffect(() => {
    const element = strip.current;
    if (!element) return;
    const onWheel = (event: WheelEvent) => {
      if (Math.abs(event.deltaY) <= Math.abs(event.deltaX) || element.scrollWidth <= element.clientWidth) return;
      event.preventDefault();
      element.scrollLeft += event.deltaMode === WheelEvent.DOM_DELTA_LINE ? event.deltaY * 16 : event.deltaY;
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => element.removeEventListener('wheel', onWheel);
  }, [strip]);
}

/**
 * The requests open in the Composer, one tab each in a strip that scrolls sideways, kept across restarts; a list of
 * them all beside it. Arrows, Home and End move between tabs, Delete closes one (asking first when no file holds its
 * changes); the open-request keys (new, close, next, previous, reopen) work anywhere on the Composer.
 */
export function OpenRequests() {
  const tabs = useComposerStore((state) => state.tabs);
  const activeTab = useComposerStore((state) => state.activeTab);
  const draft = useComposerStore((state) => state.draft);
  const savedAs = useComposerStore((state) => state.savedAs);
  const sending = useComposerStore((state) => state.sending);
  const reopenable = useComposerStore((state) => state.closed.length);
  const { openTab, showTab, closeTab, cycleTab, reopenTab } = useComposerStore.getState();
  const view = useCollectionsStore((state) => state.value);
  const [confirming, setConfirming] = useState<string | null>(null);
  const strip = useRef<HTMLDivElement>(null);
  useSidewaysWheel(strip);

  const shown = tabs.map((tab) => (tab.id === activeTab ? { ...tab, draft, savedAs } : tab));
  const unsaved = (tab: OpenRequest) => unsavedIn(view, tab);
  const show = (id: string) => {
    showTab(id);
    focusTab(id);
  };
  // One function for every render, so a tab the user is not typing in is not drawn again.
  const close = useCallback((tab: OpenRequest) => {
    if (unsavedIn(useCollectionsStore.getState().value, tab)) return setConfirming(tab.id);
    closeTab(tab.id);
    focusTab(useComposerStore.getState().activeTab);
  }, [closeTab]);
  const keep = () => {
    setConfirming(null);
    focusTab(activeTab);
  };
  const closeWithoutSaving = (id: string) => {
    setConfirming(null);
    closeTab(id);
    focusTab(useComposerStore.getState().activeTab);
  };

  useLayoutEffect(() => keepInView(strip.current, activeTab), [activeTab, tabs.length]);
  // A narrower window narrows the strip: the tab on show stays in it.
  useEffect(() => {
    const element = strip.current;
    if (!element) return;
    const observer = new ResizeObserver(() => keepInView(element, useComposerStore.getState().activeTab));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  useOpenRequestKeys((command: TabCommand) => {
    const focused = document.activeElement?.getAttribute('role') === 'tab';
    const after = () => {
      // A tab that had the focus hands it to the tab now on show; elsewhere the focus stays where the user is.
      if (focused) focusTab(useComposerStore.getState().activeTab);
    };
    if (command === 'close') return close(shown.find((tab) => tab.id === activeTab)!);
    if (command === 'new') openTab();
    else if (command === 'reopen') reopenTab();
    else cycleTab(command === 'next' ? 1 : -1);
    after();
  });

  const onKeyDown = (event: KeyboardEvent) => {
    const at = shown.findIndex((tab) => tab.id === activeTab);
    if (event.key === 'Delete') {
      event.preventDefault();
      return close(shown[at]);
    }
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: shown.length - 1 }[event.key];
    if (next === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    show(shown[(next + shown.length) % shown.length].id);
  };

  const asking = shown.find((tab) => tab.id === confirming);
  return (
    <div className="open-requests">
      <div className="open-request-tabs" role="tablist" aria-label="Open requests" ref={strip} onKeyDown={onKeyDown}>
        {shown.map((tab) => (
          <OpenRequestTab
            key={tab.id}
            tab={tab}
            active={tab.id === activeTab}
            unsaved={unsaved(tab)}
            waiting={sending !== null}
            onShow={showTab}
            onClose={close}
          />
        ))}
      </div>
      <OpenRequestsMenu
        requests={shown.map((tab) => ({
          id: tab.id,
          method: tab.draft.method,
          label: labelOf(tab),
          mark: unsaved(tab) && <UnsavedMark />,
          active: tab.id === activeTab,
          disabled: sending !== null && tab.id !== activeTab,
        }))}
        onShow={show}
      />
      <button
        type="button"
        className="new-request"
        aria-label="New request"
        aria-keyshortcuts={tabKeyAria('new')}
        title={`New request (${tabKeyLabel('new')})${reopenable > 0 ? `; ${tabKeyLabel('reopen')} reopens the last one closed` : ''}`}
        disabled={sending !== null}
        onClick={openTab}
      >
        +
      </button>
      {asking && <CloseQuestion tab={asking} onClose={() => closeWithoutSaving(asking.id)} onKeep={keep} />}
    </div>
  );
}
