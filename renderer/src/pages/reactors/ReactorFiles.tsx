import { useState, type FormEvent } from 'react';
import type { ReactorView } from '../../../../shared/workbench/reactor-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { useReactorsStore } from '../../state/reactors-store';

/** What an export or an import moved into Secrets, as a sentence to follow what it did ('' when nothing). */
const movedWords = (moved: readonly { secret: string }[]) => (moved.length === 0 ? '' : ` Moved into Secrets: ${moved.map(({ secret }) => secret).join(', ')}.`);

/**
 * The reactor in the proxies folder: one made through the API or this page exported to a `.reactor.json` file (its
 * secrets moved into Secrets, its id kept), or the hosted service's JSON of one imported; a file reactor says its file.
 */
export function ReactorFiles({ reactor }: { reactor: ReactorView }) {
  const api = useWorkbenchApi();
  const [json, setJson] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const exporting = useEngineCall();
  const importing = useEngineCall();
  const exportIt = () =>
    void exporting.run(async () => {
      const written = await api.exportReactorToFiles({ id: reactor.id });
      setDone(`Exported to ${written.files.join(', ')}: the reactor is the file's now, with the same id.${movedWords(written.moved)}`);
      await useReactorsStore.refresh(api);
    });
  const importIt = (event: FormEvent) => {
    event.preventDefault();
    void importing.run(async () => {
      const written = await api.importReactorToFiles({ json });
      setJson('');
      setDone(`Imported to ${written.files.join(', ')}, ${written.kept_identity ? 'with its id' : 'with a new id (its own is taken here)'}.${movedWords(written.moved)}`);
      await useReactorsStore.refresh(api);
    });
  };
  return (
    <section className="panel reactor-files" aria-labelledby="reactor-files-title">
      <h2 id="reactor-files-title">Proxies folder</h2>
      {reactor.file === null ? (
        <>
          <p className="muted proxy-hint">
            Moves this reactor into the proxies folder as <code>.reactor.json</code> with its code beside it, for a repository: credentials in its configuration go to
            Secrets, and from then on the file is where it changes.
          </p>
          <div className="proxy-actions">
            <button type="button" disabled={exporting.busy} onClick={exportIt}>
              Export to the proxies folder
            </button>
          </div>
          <Alert message={exporting.problem} />
        </>
      ) : (
        <p className="muted proxy-hint">
          Loaded from <code>{reactor.file}</code> in the proxies folder: edit the file to change it.
        </p>
      )}
      <form aria-label="Import a reactor's JSON" onSubmit={importIt}>
        <label className="proxy-field reactor-json">
          <span>Reactor JSON, as GET /reactors/{'{id}'} of the hosted service answers it</span>
          <textarea rows={3} spellCheck={false} value={json} onChange={(event) => setJson(event.target.value)} placeholder='{ "id": "…", "name": "Card", "code": "module.exports = …" }' />
        </label>
        <button type="submit" disabled={importing.busy || json.trim() === ''}>
          Import into the folder
        </button>
        <Alert message={importing.problem} />
      </form>
      <p role="status" className="muted">
        {done}
      </p>
    </section>
  );
}
