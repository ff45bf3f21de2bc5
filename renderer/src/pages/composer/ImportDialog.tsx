import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ImportedRequests } from '../../../../shared/workbench/collection-contract';
import type { PostmanImported } from '../../../../shared/workbench/postman-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { IS_MAC } from '../../components/keys';
import { useCollectionsStore } from '../../state/collections-store';
import { useComposerStore } from '../../state/composer-store';
import { useEnvironmentsStore } from '../../state/environments-store';

type Imported = ImportedRequests['requests'][number];
const FORMAT_NAMES: Record<ImportedRequests['format'], string> = { curl: 'a cURL command', har: 'a HAR' };

/** Opens one imported request in the Composer, saying where it came from and what changed on the way. */
function open(imported: Imported, format: ImportedRequests['format']): void {
  useComposerStore.getState().load(imported.request, [`Imported ${imported.label} from ${FORMAT_NAMES[format]}.`, ...imported.notes].join(' '));
}

/** What an import of several requests moved into Secrets, by the secrets' names; null when nothing. */
function movedIn(found: ImportedRequests): string | null {
  const names = [...new Set(found.requests.flatMap((imported) => imported.moved_aside.map(({ secret }) => secret)))];
  return names.length === 0 ? null : `Their credentials were moved into Secrets, where each request refers to them by name: ${names.join(', ')}.`;
}

/** Ctrl/Cmd+Enter submits the form a text box is in, where Enter is a new line. */
const submitOnModEnter = (submit: (event: KeyboardEvent) => void) => (event: KeyboardEvent) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) submit(event);
};

/** A text box for an exported file's JSON, with a button that reads the file into it. */
/** Import (also Ctrl/⌘+Enter in a field) and Cancel, at the foot of either form. */
function ImportActions({ disabled, onClose }: { disabled: boolean; onClose: () => void }) {
  return (
    <div className="modal-actions">
      <button type="submit" className="primary" disabled={disabled}>
        Import <kbd>{IS_MAC ? '⌘↵' : 'Ctrl+↵'}</kbd>
      </button>
      <button type="button" onClick={onClose}>
        Cancel
      </button>
    </div>
  );
}

function JsonFileField({ id, label, value, onChange, onSubmit, autoFocus }: { id: string; label: string; value: string; onChange: (text: string) => void; onSubmit: (event: KeyboardEvent) => void; autoFocus?: boolean }) {
  return (
    <div className="import-file-field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} className="import-text" rows={5} spellCheck={false} autoFocus={autoFocus} value={value} onChange={(event) => onChange(event.target.value)} onKeyDown={submitOnModEnter(onSubmit)} />
      <label className="file-pick">
        Open a file…
        <input type="file" accept=".json,application/json" onChange={(event) => void event.target.files?.[0]?.text().then(onChange)} />
      </label>
    </div>
  );
}

/** What a Postman import made, and what it could not carry over. */
function PostmanResult({ result, onClose }: { result: PostmanImported; onClose: () => void }) {
  const requests = result.collections.reduce((sum, collection) => sum + collection.requests.length, 0);
  return (
    <>
      <p role="status">
        Imported {requests} {requests === 1 ? 'request' : 'requests'} into {result.collections.map((collection) => `“${collection.name}”`).join(', ') || 'no collection'}
        {result.environment &&
          `, and the environment “${result.environment.name}” (${result.environment.variables} variables${result.environment.secrets.length > 0 ? `, ${result.environment.secrets.length} kept in Secrets` : ''})`}
        .
      </p>
      {result.moved_aside.length > 0 && (
        <p className="muted">Credentials moved into Secrets, where the requests refer to them by name: {[...new Set(result.moved_aside.map(({ secret }) => secret))].join(', ')}.</p>
      )}
      {result.not_carried.length > 0 && (
        <section aria-labelledby="not-carried-title">
          <h3 id="not-carried-title">Not carried over</h3>
          <ul className="import-notes">
            {result.not_carried.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </section>
      )}
      {result.notes.length > 0 && (
        <details>
          <summary>What changed on the way ({result.notes.length})</summary>
          <ul className="import-notes">
            {result.notes.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </details>
      )}
      <div className="modal-actions">
        <button type="button" className="primary" autoFocus onClick={onClose}>
          Done
        </button>
      </div>
    </>
  );
}

/** A Postman collection (v2.1) and its environment, written into the folder as collections and an environment. */
function PostmanImport({ onClose }: { onClose: () => void }) {
  const api = useWorkbenchApi();
  const [collection, setCollection] = useState('');
  const [environment, setEnvironment] = useState('');
  const [replace, setReplace] = useState(false);
  const [result, setResult] = useState<PostmanImported | null>(null);
  const { busy, problem, run } = useEngineCall();
  const submit = (event?: FormEvent | KeyboardEvent) => {
    event?.preventDefault();
    void run(async () => {
      const imported = await api.importPostman({ collection: collection.trim() || null, environment: environment.trim() || null, replace });
      useCollectionsStore.getState().loaded(imported.view);
      await useEnvironmentsStore.refresh(api);
      setResult(imported);
    });
  };
  if (result) return <PostmanResult result={result} onClose={onClose} />;
  return (
    <form onSubmit={submit}>
      <JsonFileField id="postman-collection" label="Collection (Postman’s Export, Collection v2.1)" value={collection} onChange={setCollection} onSubmit={submit} autoFocus />
      <JsonFileField id="postman-environment" label="Environment (optional: Postman’s environment export)" value={environment} onChange={setEnvironment} onSubmit={submit} />
      <label className="import-replace">
        <input type="checkbox" checked={replace} onChange={(event) => setReplace(event.target.checked)} /> Replace saved requests and an environment of the same names
      </label>
      <p className="muted">
        Folders become collections, <code>{'{{variables}}'}</code> become <code>{'${env:variables}'}</code>, auth and secret values move into Secrets. Scripts,
        signing auth and file bodies cannot come along: the import lists them.
      </p>
      <Alert message={problem} />
      <ImportActions disabled={busy || (collection.trim() === '' && environment.trim() === '')} onClose={onClose} />
    </form>
  );
}

/**
 * Paste a cURL command or a HAR: the engine reads it as curl would, and the request opens in the Composer. A HAR of
 * several requests lists them to pick from. A Postman export is written into the folder instead.
 */
export function ImportDialog({ onClose }: { onClose: () => void }) {
  const api = useWorkbenchApi();
  const dialog = useRef<HTMLDialogElement>(null);
  const pasteField = useRef<HTMLTextAreaElement>(null);
  const [from, setFrom] = useState<'paste' | 'postman'>('paste');
  const [text, setText] = useState('');
  const [found, setFound] = useState<ImportedRequests | null>(null);
  const { busy, problem, run } = useEngineCall();
  const moved = found && movedIn(found);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    // showModal focuses the first control (the "Import from" choice): the field to paste into is where the user starts.
    pasteField.current?.focus();
    return () => element?.close();
  }, []);
  const read = (event?: FormEvent) => {
    event?.preventDefault();
    void run(async () => {
      const result = await api.importRequests({ text });
      if (result.requests.length === 1) {
        open(result.requests[0], result.format);
        onClose();
      } else setFound(result);
    });
  };
  return (
    <dialog ref={dialog} className="modal import-dialog" aria-labelledby="import-title" onClose={onClose}>
      <h2 id="import-title">{from === 'postman' ? 'Import from Postman' : 'Import a request'}</h2>
      {!found && (
        <fieldset className="segments import-from">
          <legend className="visually-hidden">Import from</legend>
          <label>
            <input type="radio" name="import-from" checked={from === 'paste'} onChange={() => setFrom('paste')} />
            cURL or HAR
          </label>
          <label>
            <input type="radio" name="import-from" checked={from === 'postman'} onChange={() => setFrom('postman')} />
            Postman
          </label>
        </fieldset>
      )}
      {from === 'postman' ? (
        <PostmanImport onClose={onClose} />
      ) : found ? (
        <>
          <p>
            {found.requests.length} requests in the HAR
            {found.left_out ? ` (the first ${found.requests.length}; ${found.left_out} more left out)` : ''}. Open one in the Composer:
          </p>
          {moved && <p className="muted">{moved}</p>}
          <ul className="import-list">
            {found.requests.map((imported, index) => (
              <li key={index}>
                <button
                  type="button"
                  className="link"
                  autoFocus={index === 0}
                  onClick={() => {
                    open(imported, found.format);
                    onClose();
                  }}
                >
                  {imported.label}
                </button>
              </li>
            ))}
          </ul>
          <div className="modal-actions">
            <button type="button" onClick={() => setFound(null)}>
              Back
            </button>
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </>
      ) : (
        <form onSubmit={read}>
          <label htmlFor="import-text">A cURL command, or a HAR (a file exported by a browser, HTTP Toolkit or History, or one entry of it)</label>
          <textarea
            ref={pasteField}
            id="import-text"
            className="import-text"
            rows={10}
            spellCheck={false}
            autoFocus
            value={text}
            onChange={(event) => setText(event.target.value)}
            onKeyDown={submitOnModEnter(read)}
            placeholder={"curl https://api.basistheory.com/proxy \\\n  -H 'BT-PROXY-URL: https://api.example.com' \\\n  -d '{\"card\": \"{{ token_id }}\"}'"}
          />
          <p className="muted">
            A request to the hosted service comes in as one to this engine: its key is left out (the Composer sends as the application you pick), a call to a
            third party goes through the proxy. Its other credentials (Authorization, cookies, -u) move into Secrets, and the request refers to them by name.
          </p>
          <Alert message={problem} />
          <ImportActions disabled={busy || text.trim() === ''} onClose={onClose} />
        </form>
      )}
    </dialog>
  );
}
