import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { ProxyFile, ProxyFilesView } from '../../../../shared/workbench/proxy-files-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ColumnHeads } from '../../components/ColumnHeads';
import { FolderForm } from './FolderForm';
import { ActionOutcome } from './SettingFields';

/** How often the files' state is read while Settings is open: the engine reloads a saved file within half a second. */
const REFRESH_MS = 2000;

/** A file's state in words: what serves, and why not the file as it is. */
function stateOf(file: ProxyFile): string {
  if (file.state === 'loaded') return file.warnings.length > 0 ? 'Loaded, with warnings' : 'Loaded';
  return file.served ? 'Broken: the last good version serves' : 'Broken: serves nothing';
}

function FileRow({ file }: { file: ProxyFile }) {
  const notes = [...file.problems, ...file.warnings];
  return (
    <tr>
      <td>
        <code>{file.path}</code>
      </td>
      <td>{file.kind === 'reactor' ? 'Reactor' : 'Proxy'}</td>
      <td>{file.served ? file.served.name : <span className="muted">none</span>}</td>
      <td className={file.state === 'error' ? 'proxy-file-error' : undefined}>
        {stateOf(file)}
        {notes.length > 0 && (
          <ul className="proxy-file-notes">
            {notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        )}
      </td>
      <td className="time">{new Date(file.at).toLocaleString()}</td>
    </tr>
  );
}

/** Export a proxy made through the API into the folder, or import the hosted service's JSON of one. */
function ExportImport({ view, onView }: { view: ProxyFilesView; onView: (view: ProxyFilesView, done: string) => void }) {
  const api = useWorkbenchApi();
  const [chosen, setChosen] = useState('');
  const [json, setJson] = useState('');
  const exporting = useEngineCall();
  const importing = useEngineCall();
  const moved = (list: { secret: string }[]) => (list.length === 0 ? '' : ` Moved into Secrets: ${list.map(({ secret }) => secret).join(', ')}.`);
  const exportOne = (event: FormEvent) => {
    event.preventDefault();
    void exporting.run(async () => {
      const written = await api.exportProxyToFiles({ id: chosen });
      setChosen('');
      onView(written.view, `Exported to ${written.files.join(', ')}: the proxy is the file's now, with the same id and key.${moved(written.moved)}`);
    });
  };
  const importOne = (event: FormEvent) => {
    event.preventDefault();
    void importing.run(async () => {
      const written = await api.importProxyToFiles({ json });
      setJson('');
      const identity = written.kept_identity ? 'with its id and key' : 'with a new id and key (its own are taken here)';
      onView(written.view, `Imported to ${written.files.join(', ')}, ${identity}.${moved(written.moved)}`);
    });
  };
  const noFolder = view.folder === null;
  return (
    <div className="proxy-file-moves">
      <form aria-label="Export a proxy to the folder" onSubmit={exportOne}>
        <div className="settings-inline">
          <select aria-label="Proxy to export" value={chosen} onChange={(event) => setChosen(event.target.value)} disabled={noFolder || view.exportable.length === 0}>
            <option value="">{view.exportable.length === 0 ? 'No proxy made through the API' : 'Choose a proxy…'}</option>
            {view.exportable.map((proxy) => (
              <option key={proxy.id} value={proxy.id}>
                {proxy.name}
              </option>
            ))}
          </select>
          <button type="submit" disabled={exporting.busy || noFolder || chosen === ''}>
            Export to the folder
          </button>
        </div>
        <Alert message={exporting.problem} />
      </form>
      <form aria-label="Import a proxy's JSON" onSubmit={importOne}>
        <label className="proxy-json-field">
          <span>Proxy JSON, as GET /proxies/{'{id}'} of the hosted service answers it</span>
          <textarea rows={4} spellCheck={false} value={json} onChange={(event) => setJson(event.target.value)} disabled={noFolder} placeholder='{ "id": "…", "key": "…", "name": "Charge", "destination_url": "https://…" }' />
        </label>
        <button type="submit" disabled={importing.busy || noFolder || json.trim() === ''}>
          Import into the folder
        </button>
        <Alert message={importing.problem} />
      </form>
    </div>
  );
}

/**
 * The folder of proxy and reactor files (`serve --proxies DIR`, or chosen here): each file with what it serves, loaded
 * or broken and why, refreshed while Settings is open; and proxies moved into it by export or import.
 */
export function ProxiesFolderSection() {
  const api = useWorkbenchApi();
  const [view, setView] = useState<ProxyFilesView | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const refresh = useCallback(
    () =>
      api.listProxyFiles().then(
        (next) => {
          setView(next);
          setProblem(null);
        },
        (error: Error) => setProblem(error.message),
      ),
    [api],
  );
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);
  const changed = (next: ProxyFilesView, sentence: string) => {
    setView(next);
    setDone(sentence);
  };
  const choose = async (folder: string | null) => {
    const next = await api.setProxiesFolder({ folder });
    changed(next, next.folder === null ? 'No proxies are loaded from a folder now.' : `Proxies are loaded from ${next.folder} now.`);
  };
  return (
    <section className="panel settings-section" aria-labelledby="settings-proxies-folder">
      <h2 id="settings-proxies-folder">Proxies folder</h2>
      <p className="muted settings-hint">
        One <code>.json</code> file per pre-configured proxy (the fields of POST /proxies), one <code>.reactor.json</code> file per reactor (the fields of POST
        /reactors), code in a <code>.js</code> file beside it named by <code>code_file</code>; secret configuration values as{' '}
        <code>{'${secret:NAME}'}</code>. A saved file is live for the next request or react; the API cannot change these (409): edit the file.
      </p>
      <Alert message={problem} />
      {view ? (
        <>
          <FolderForm
            key={view.folder ?? ''}
            setting={view}
            purpose="proxies"
            formLabel="Proxies folder"
            pathLabel="Proxies folder path"
            placeholder="/home/you/project/proxies"
            useLabel="Load proxies from this folder"
            clearLabel="Stop loading"
            onChoose={choose}
          />
          {view.folder !== null &&
            (view.files.length === 0 ? (
              <p className="muted">No proxy or reactor files in this folder yet.</p>
            ) : (
              <table className="data-table" aria-label="Proxy and reactor files">
                <ColumnHeads columns={['File', 'Kind', 'Serves', 'State', 'Read']} />
                <tbody>
                  {view.files.map((file) => (
                    <FileRow key={file.path} file={file} />
                  ))}
                </tbody>
              </table>
            ))}
          <ExportImport view={view} onView={changed} />
        </>
      ) : (
        <p className="muted">Reading the proxies folder…</p>
      )}
      <ActionOutcome done={done} problem={null} />
    </section>
  );
}
