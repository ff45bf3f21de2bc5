import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { ImportedRequests } from '../../../../shared/workbench/contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { IS_MAC } from '../../components/keys';
import { useComposerStore } from '../../state/composer-store';

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

/**
 * Paste a cURL command or a HAR: the engine reads it as curl would, and the request opens in the Composer. A HAR of
 * several requests lists them to pick from.
 */
export function ImportDialog({ onClose }: { onClose: () => void }) {
  const api = useWorkbenchApi();
  const dialog = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState('');
  const [found, setFound] = useState<ImportedRequests | null>(null);
  const { busy, problem, run } = useEngineCall();
  const moved = found && movedIn(found);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
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
  // Ctrl/Cmd+Enter imports from the text box, where Enter is a new line.
  const submitOnModEnter = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) read(event);
  };
  return (
    <dialog ref={dialog} className="modal import-dialog" aria-labelledby="import-title" onClose={onClose}>
      <h2 id="import-title">Import a request</h2>
      {found ? (
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
            id="import-text"
            className="import-text"
            rows={10}
            spellCheck={false}
            autoFocus
            value={text}
            onChange={(event) => setText(event.target.value)}
            onKeyDown={submitOnModEnter}
            placeholder={"curl https://api.basistheory.com/proxy \\\n  -H 'BT-PROXY-URL: https://api.example.com' \\\n  -d '{\"card\": \"{{ token_id }}\"}'"}
          />
          <p className="muted">
            A request to the hosted service comes in as one to this engine: its key is left out (the Composer sends as the application you pick), a call to a
            third party goes through the proxy. Its other credentials (Authorization, cookies, -u) move into Secrets, and the request refers to them by name.
          </p>
          <Alert message={problem} />
          <div className="modal-actions">
            <button type="submit" className="primary" disabled={busy || text.trim() === ''}>
              Import <kbd>{IS_MAC ? '⌘↵' : 'Ctrl+↵'}</kbd>
            </button>
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
