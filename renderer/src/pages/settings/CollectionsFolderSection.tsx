import { useState, type FormEvent } from 'react';
import type { EngineSettings } from '../../../../shared/workbench/settings-contract';
import { desktopBridge } from '../../api/desktop';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { useCollectionsStore } from '../../state/collections-store';
import { useEnvironmentsStore } from '../../state/environments-store';
import { useSettingsStore } from '../../state/settings-store';
import { Alert } from '../../components/Alert';
import { ActionOutcome } from './SettingFields';

type FolderState = EngineSettings['collections'];

/** The folder form, started from the engine's folder; every change the engine confirms restarts it (keyed). */
function FolderForm({ state, onDone }: { state: FolderState; onDone: (done: string) => void }) {
  const api = useWorkbenchApi();
  const [path, setPath] = useState(state.folder);
  const { busy, problem, run } = useEngineCall();
  const picker = desktopBridge();
  const pinned = state.pinnedBy !== null;
  const choose = (folder: string | null) =>
    run(async () => {
      const settings = await api.setCollectionsFolder({ folder });
      useSettingsStore.getState().loaded(settings);
      useCollectionsStore.getState().loaded(await api.listCollections());
      await useEnvironmentsStore.refresh(api);
      onDone(`Saved requests and environments are kept in ${settings.collections.folder} now.`);
    });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void choose(path);
  };
  const pick = () =>
    void run(async () => {
      const chosen = await picker!.pickFolder();
      if (chosen === null) return;
      setPath(chosen);
      await choose(chosen);
    });
  return (
    <form className="folder-form" aria-label="Saved requests folder" onSubmit={submit}>
      <div className="settings-inline">
        <input
          type="text"
          className="folder-path"
          aria-label="Folder"
          spellCheck={false}
          required
          disabled={pinned}
          value={path}
          onChange={(event) => setPath(event.target.value)}
          placeholder="/home/you/project/requests"
        />
        {picker && (
          <button type="button" disabled={busy || pinned} onClick={pick}>
            Choose…
          </button>
        )}
        <button type="submit" className="primary" disabled={busy || pinned || path.trim() === state.folder}>
          Use this folder
        </button>
        {state.stored !== null && !pinned && (
          <button type="button" disabled={busy} onClick={() => void choose(null)}>
            Back to the default
          </button>
        )}
      </div>
      {pinned ? (
        <p className="limit-pinned">
          Fixed by the start flag <code>{state.pinnedBy}</code>: start the engine without it to choose the folder here.
        </p>
      ) : (
        <p className="muted settings-hint">
          A whole path (or from <code>~/</code>); made if new. Not inside the data folder, where the vault keeps its own files. Default: {state.default}.
        </p>
      )}
      <Alert message={problem} />
    </form>
  );
}

/**
 * Where saved requests and environments are kept: a folder of the user's repository, say, chosen with a path (the
 * browser workbench) or the system's folder picker (the desktop app), remembered by the engine, changed at once.
 */
export function CollectionsFolderSection() {
  const settings = useSettingsStore((state) => state.value);
  const [done, setDone] = useState<string | null>(null);
  return (
    <section className="panel settings-section" aria-labelledby="settings-folder">
      <h2 id="settings-folder">Saved requests folder</h2>
      {settings ? <FolderForm key={settings.collections.folder} state={settings.collections} onDone={setDone} /> : <p className="muted">Reading the settings…</p>}
      <ActionOutcome done={done} problem={null} />
    </section>
  );
}
