import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { CollectionsView, SavedRequest } from '../../../../shared/workbench/collection-contract';
import type { MovedAside } from '../../../../shared/workbench/secret-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { wordList } from '../../components/format';
import { changedSinceSaved, useCollectionsStore } from '../../state/collections-store';
import { applicationToUse, useApplicationsStore } from '../../state/applications-store';
import { samePlace, useComposerStore, type SavedPlace } from '../../state/composer-store';
import { useRemoteTargetsStore, remoteTargetToUse } from '../../state/remote-targets-store';
import { useEngineStore } from '../../state/engine-store';
import { storedPreference } from '../../state/stored-preference';
import { ImportDialog } from './ImportDialog';

/** What a save moved into Secrets, said where the user looks next. */
const movedNotice = (place: SavedPlace, moved: readonly MovedAside[]) =>
  `Saved “${place.name}” in ${place.collection}. Moved ${wordList(moved.map(({ header }) => header))} into Secrets: the file refers to ${moved.length === 1 ? 'it' : 'them'} by name (${wordList(moved.map(({ secret }) => secret))}).`;

/** Saves the draft under a collection and a name (new ones allowed); over the one it came from with one click. */
function SaveForm({ view, onDone }: { view: CollectionsView; onDone: () => void }) {
  const api = useWorkbenchApi();
  const savedAs = useComposerStore((state) => state.savedAs);
  const [collection, setCollection] = useState(savedAs?.collection ?? view.collections[0]?.name ?? 'My requests');
  const [name, setName] = useState(savedAs?.name ?? '');
  const { busy, problem, run } = useEngineCall();
  const save = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const place = { collection: collection.trim(), name: name.trim() };
      const { draft } = useComposerStore.getState();
      const reply = await api.saveRequest({ ...place, request: draft, overwrite: samePlace(savedAs, place), send_as: sendAsName() });
      useCollectionsStore.getState().loaded(reply);
      // The request as its file now holds it: the draft keeps no credential the file does not.
      const stored = reply.collections.find((c) => c.name === place.collection)?.requests.find((r) => r.name === place.name)?.request;
      useComposerStore.getState().saved(place, stored && reply.moved_aside.length > 0 ? { draft: stored, notice: movedNotice(place, reply.moved_aside) } : undefined);
      onDone();
    });
  };
  return (
    <form className="save-form" onSubmit={save} aria-label="Save the request">
      <label>
        Collection
        <input type="text" list="collection-names" value={collection} onChange={(event) => setCollection(event.target.value)} required />
      </label>
      <datalist id="collection-names">
        {view.collections.map((c) => (
          <option key={c.name} value={c.name} />
        ))}
      </datalist>
      <label>
        Name
        <input type="text" value={name} onChange={(event) => setName(event.target.value)} required autoFocus />
      </label>
      <div className="save-actions">
        <button type="submit" className="small primary" disabled={busy}>
          Save
        </button>
        <button type="button" className="small" onClick={onDone}>
          Cancel
        </button>
      </div>
      <Alert message={problem} />
    </form>
  );
}

/** The application the Composer sends as, by name, to keep with a saved request; null when it sends to a remote target. */
function sendAsName(): string | null {
  const { targetId, applicationId } = useComposerStore.getState();
  if (remoteTargetToUse(useRemoteTargetsStore.getState().value, targetId)) return null;
  return applicationToUse(useApplicationsStore.getState().value, applicationId)?.name ?? null;
}

type SendAs = { name: string; application_id: string | null } | null | undefined;

/** Opens a saved request, sent as the application its file names when this vault has one of that name; says so when not. */
function openSaved(place: SavedPlace, request: SavedRequest, sendAs: SendAs): void {
  const composer = useComposerStore.getState();
  if (sendAs?.application_id) composer.chooseApplication(sendAs.application_id);
  const missing = sendAs && !sendAs.application_id ? ` It is sent as “${sendAs.name}”, which is no application here: pick one under Send as, or create it in Settings.` : '';
  composer.load(request, `Opened “${place.name}” from ${place.collection}.${missing}`, place);
}

/** One saved request: open it, rename or move it, delete it. */
function SavedItem({
  collection,
  name,
  request,
  problem,
  secrets_in_plain_text: plain = [],
  send_as: sendAs,
}: SavedPlace & { request: SavedRequest | null; problem: string | null; secrets_in_plain_text?: string[]; send_as?: SendAs }) {
  const api = useWorkbenchApi();
  const savedAs = useComposerStore((state) => state.savedAs);
  const draft = useComposerStore((state) => state.draft);
  const [renaming, setRenaming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [to, setTo] = useState(`${collection}/${name}`);
  const action = useEngineCall();
  const current = samePlace(savedAs, { collection, name });
  const open = () => request && openSaved({ collection, name }, request, sendAs);
  const move = (event: FormEvent) => {
    event.preventDefault();
    const [toCollection, ...rest] = to.split('/');
    void action.run(async () => {
      const target = { collection: toCollection.trim(), name: rest.join('/').trim() };
      useCollectionsStore.getState().loaded(await api.moveRequest({ from: { collection, name }, to: target }));
      if (current) useComposerStore.getState().saved(target);
      setRenaming(false);
    });
  };
  const remove = () =>
    void action.run(async () => {
      useCollectionsStore.getState().loaded(await api.deleteRequest({ collection, name }));
    });
  return (
    <li className={current ? 'current' : undefined}>
      {renaming ? (
        <form onSubmit={move} aria-label={`Rename or move ${name}`}>
          <input type="text" aria-label="Collection/name" value={to} onChange={(event) => setTo(event.target.value)} autoFocus />
          <button type="submit" className="small">
            Move
          </button>
          <button type="button" className="small" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <button type="button" className="link saved-name" disabled={!request} title={problem ?? name} onClick={open}>
            {request?.method && <span className="saved-method">{request.method}</span>} {name}
            {current && changedSinceSaved(draft, request) && <span className="changed" aria-label="changed since saved"> •</span>}
          </button>
          <span className="saved-actions">
            <button type="button" className="small" aria-label={`Rename or move ${name}`} onClick={() => setRenaming(true)}>
              ✎
            </button>
            <button type="button" className="small" aria-label={`Delete ${name}`} onClick={() => setDeleting(true)}>
              ×
            </button>
          </span>
        </>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${name}?`}
          confirm={`Delete ${name}`}
          busy={action.busy}
          problem={action.problem}
          onConfirm={remove}
          onClose={() => setDeleting(false)}
        >
          <p>Its file leaves the folder.</p>
        </ConfirmDialog>
      )}
      {problem && <p className="muted saved-problem">Not a saved request: {problem}. Fix its file in the folder below, or delete it.</p>}
      {plain.length > 0 && (
        <p className="saved-warning">
          Holds a secret in plain text ({plain.join(', ')}): save it again to move it to Secrets.
        </p>
      )}
      <Alert message={action.problem} />
    </li>
  );
}

const storedFold = storedPreference(
  'tokenbench.composer.saved-requests',
  (value) => (value === 'folded' ? true : value === 'shown' ? false : undefined),
  (folded) => (folded ? 'folded' : 'shown'),
);
/** Below this window width the request and its answer need the room, so the list starts folded. */
const ROOM_FOR_THREE_COLUMNS = 1400;
const FOLD_HINT = 'Ctrl+\\';

/**
 * Whether the list is folded to a rail: as the user last left it, else by the window's width. Ctrl+\ (as in Postman)
 * folds and unfolds it from anywhere on the page. Folded or unfolded with its button, the focus moves to the button
 * that undoes it (`focusToggle`); with Ctrl+\ it stays where it was.
 */
function useFolded(): { folded: boolean; focusToggle: boolean; fold(folded: boolean, byButton: boolean): void } {
  const [state, setState] = useState(() => ({ folded: storedFold.read() ?? window.innerWidth < ROOM_FOR_THREE_COLUMNS, focusToggle: false }));
  const fold = useCallback((folded: boolean, byButton: boolean) => {
    storedFold.write(folded);
    setState({ folded, focusToggle: byButton });
  }, []);
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== '\\' || !(event.ctrlKey || event.metaKey) || event.defaultPrevented) return;
      event.preventDefault();
      fold(!state.folded, false);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [fold, state.folded]);
  return { ...state, fold };
}

/** The saved requests beside the Composer: plain files in a folder a team can keep in git. */
export function CollectionsPanel() {
  // Listed once per visit; the live feed keeps them current after that.
  useCollectionsStore.useRefreshed();
  const view = useCollectionsStore((state) => state.value);
  const problem = useCollectionsStore((state) => state.problem);
  // Without the engine the shell says why; this would only say it again.
  const live = useEngineStore((state) => state.connection === 'live');
  const { folded, focusToggle, fold } = useFolded();
  const [saving, setSaving] = useState(false);
  const [importing, setImporting] = useState(false);
  const actions = (
    <>
      <button type="button" className="small" onClick={() => setImporting(true)} title="Paste a cURL command or a HAR">
        Import…
      </button>
      {view && !saving && (
        <button
          type="button"
          className="small"
          onClick={() => {
            fold(false, false);
            setSaving(true);
          }}
        >
          Save…
        </button>
      )}
      {importing && <ImportDialog onClose={() => setImporting(false)} />}
    </>
  );
  if (folded) {
    return (
      <section className="panel collections folded" aria-labelledby="collections-title">
        <h2 id="collections-title" className="visually-hidden">
          Saved requests
        </h2>
        <button type="button" className="small" aria-expanded={false} title={`Show the saved requests (${FOLD_HINT})`} autoFocus={focusToggle} onClick={() => fold(false, true)}>
          Saved requests ›
        </button>
        {actions}
      </section>
    );
  }
  return (
    <section className="panel collections" aria-labelledby="collections-title">
      <div className="panel-head">
        <h2 id="collections-title">Saved requests</h2>
        <button type="button" className="small" aria-expanded title={`Fold the saved requests away (${FOLD_HINT})`} autoFocus={focusToggle} onClick={() => fold(true, true)}>
          ‹ Hide
        </button>
      </div>
      <div className="panel-actions">{actions}</div>
      <Alert message={live && problem ? `Could not list the saved requests: ${problem}` : null} />
      {view && saving && <SaveForm view={view} onDone={() => setSaving(false)} />}
      {view && (
        <>
          {view.collections.length === 0 && <p className="muted">None yet. Save the request to keep it as a file you can commit.</p>}
          {view.collections.map((collection) => (
            <details key={collection.name} open>
              <summary>{collection.name}</summary>
              <ul>
                {collection.requests.map((saved) => (
                  <SavedItem key={saved.name} collection={collection.name} {...saved} />
                ))}
              </ul>
            </details>
          ))}
          <p className="muted folder" title={view.folder}>
            In {view.folder}
          </p>
        </>
      )}
    </section>
  );
}
