import { useState } from 'react';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { useCollectionsStore } from '../../state/collections-store';
import { useEnvironmentsStore } from '../../state/environments-store';
import { useSettingsStore } from '../../state/settings-store';
import { FolderForm } from './FolderForm';
import { ActionOutcome } from './SettingFields';

/**
 * Where saved requests and environments are kept: a folder of the user's repository, say, chosen with a path (the
 * browser workbench) or the system's folder picker (the desktop app), remembered by the engine, changed at once.
 */
export function CollectionsFolderSection() {
  const api = useWorkbenchApi();
  const settings = useSettingsStore((state) => state.value);
  const [done, setDone] = useState<string | null>(null);
  const choose = async (folder: string | null) => {
    const next = await api.setCollectionsFolder({ folder });
    useSettingsStore.getState().loaded(next);
    useCollectionsStore.getState().loaded(await api.listCollections());
    await useEnvironmentsStore.refresh(api);
    setDone(`Saved requests and environments are kept in ${next.collections.folder} now.`);
  };
  return (
    <section className="panel settings-section" aria-labelledby="settings-folder">
      <h2 id="settings-folder">Saved requests folder</h2>
      {settings ? (
        <FolderForm
          key={settings.collections.folder}
          setting={settings.collections}
          purpose="collections"
          formLabel="Saved requests folder"
          pathLabel="Folder"
          placeholder="/home/you/project/requests"
          useLabel="Use this folder"
          clearLabel="Back to the default"
          hint={
            <>
              A whole path (or from <code>~/</code>); made if new. Not inside the data folder, where the vault keeps its own files. Default: {settings.collections.default}.
            </>
          }
          onChoose={choose}
        />
      ) : (
        <p className="muted">Reading the settings…</p>
      )}
      <ActionOutcome done={done} problem={null} />
    </section>
  );
}
