import { useState, type FormEvent, type ReactNode } from 'react';
import type { FolderPurpose } from '../../../../shared/workbench/transport';
import { desktopBridge } from '../../api/desktop';
import { useEngineCall } from '../../api/engine-call';
import { Alert } from '../../components/Alert';

/** What a folder setting is now, as the engine reports it. */
export interface FolderSetting {
  /** The folder in use, or null when none is. */
  folder: string | null;
  /** The folder chosen in Settings, or null when the default (or nothing) is in use. */
  stored: string | null;
  /** The start flag that fixes the folder, or null when Settings may change it. */
  pinnedBy: string | null;
}

interface FolderFormProps {
  setting: FolderSetting;
  purpose: FolderPurpose;
  /** The form's accessible name, and the path field's. */
  formLabel: string;
  pathLabel: string;
  placeholder: string;
  useLabel: string;
  clearLabel: string;
  /** Shown under the field when Settings may change the folder. */
  hint?: ReactNode;
  /** Asks the engine to use the folder (null: stop using the chosen one); the caller reports what changed. */
  onChoose: (folder: string | null) => Promise<void>;
}

/**
 * A folder chosen with a path (the browser workbench) or the system's picker (the desktop app). Fixed by the operator
 * (a start flag names it, or the engine listens beyond loopback): then only shown, with no chooser. Started from the
 * engine's folder: the caller keys it by that folder so a confirmed change restarts it.
 */
export function FolderForm({ setting, purpose, formLabel, pathLabel, placeholder, useLabel, clearLabel, hint, onChoose }: FolderFormProps) {
  const [path, setPath] = useState(setting.folder ?? '');
  const { busy, problem, run } = useEngineCall();
  const picker = desktopBridge();
  const pinned = setting.pinnedBy !== null;
  const choose = (folder: string | null) => run(() => onChoose(folder));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void choose(path);
  };
  const pick = () =>
    void run(async () => {
      const chosen = await picker!.pickFolder(purpose);
      if (chosen === null) return;
      setPath(chosen);
      await onChoose(chosen);
    });
  if (pinned) {
    return (
      <div className="folder-form" role="group" aria-label={formLabel}>
        <p>{setting.folder === null ? 'No folder' : <code>{setting.folder}</code>}</p>
        <p className="limit-pinned">
          Fixed by the operator with the start flag <code>{setting.pinnedBy}</code>: Settings cannot change it.
        </p>
      </div>
    );
  }
  return (
    <form className="folder-form" aria-label={formLabel} onSubmit={submit}>
      <div className="settings-inline">
        <input
          type="text"
          className="folder-path"
          aria-label={pathLabel}
          spellCheck={false}
          required
          value={path}
          onChange={(event) => setPath(event.target.value)}
          placeholder={placeholder}
        />
        {picker && (
          <button type="button" disabled={busy} onClick={pick}>
            Choose…
          </button>
        )}
        <button type="submit" className="primary" disabled={busy || path.trim() === (setting.folder ?? '')}>
          {useLabel}
        </button>
        {setting.stored !== null && (
          <button type="button" disabled={busy} onClick={() => void choose(null)}>
            {clearLabel}
          </button>
        )}
      </div>
      {hint && <p className="muted settings-hint">{hint}</p>}
      <Alert message={problem} />
    </form>
  );
}
