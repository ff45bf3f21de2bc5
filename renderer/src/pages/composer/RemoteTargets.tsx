import { useId, useState, type FormEvent } from 'react';
import type { RemoteTarget } from '../../../../shared/workbench/composer-contract';
import { lastFour } from '../../../../shared/workbench/key-name';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useComposerStore } from '../../state/composer-store';
import { useEngineStore } from '../../state/engine-store';
import { remoteTargetToUse, useRemoteTargetsStore } from '../../state/remote-targets-store';

/** The key as the workbench shows it: its last four characters at most. */
const keyHint = (last4: string) => (last4 ? lastFour(last4) : 'hidden');

/** Where the request goes: this engine, or a remote target with the key the engine keeps for it. */
export function SendTo() {
  const targets = useRemoteTargetsStore((state) => state.value);
  const chosen = useComposerStore((state) => state.targetId);
  const choose = useComposerStore((state) => state.chooseTarget);
  const url = useEngineStore((state) => state.status?.url);
  const remote = remoteTargetToUse(targets, chosen);
  if (!targets?.length) return null;
  return (
    <>
      <label>
        Send to
        <select value={remote?.id ?? ''} onChange={(event) => choose(event.target.value || null)}>
          <option value="">this engine{url ? ` (${url})` : ''}</option>
          {targets.map((target) => (
            <option key={target.id} value={target.id}>
              {target.name} · {target.base_url}
            </option>
          ))}
        </select>
      </label>
      {remote && <span className="muted">with its key {keyHint(remote.key_last4)}</span>}
    </>
  );
}

/** The remote targets kept: listed, added with a pasted key, deleted. */
export function RemoteTargets() {
  const api = useWorkbenchApi();
  const targets = useRemoteTargetsStore((state) => state.value);
  const problem = useRemoteTargetsStore((state) => state.problem);
  const chosen = useComposerStore((state) => state.targetId);
  const choose = useComposerStore((state) => state.chooseTarget);
  const [name, setName] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [asking, setAsking] = useState<RemoteTarget | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const call = useEngineCall();
  const titleId = useId();

  const add = (event: FormEvent) => {
    event.preventDefault();
    void call.run(async () => {
      const added = await api.addRemoteTarget({ name, base_url: baseUrl, api_key: apiKey });
      // The key leaves the page's memory with the form.
      setApiKey('');
      setName('');
      setBaseUrl('');
      void useRemoteTargetsStore.refresh(api);
      choose(added.id);
    });
  };
  const remove = (target: RemoteTarget) =>
    void call.run(async () => {
      await api.deleteRemoteTarget({ id: target.id });
      if (chosen === target.id) choose(null);
      setAsking(null);
      setDone(`Deleted remote target “${target.name}” and its key ${keyHint(target.key_last4)}.`);
      void useRemoteTargetsStore.refresh(api);
    });

  return (
    <details className="remote-targets" aria-labelledby={titleId}>
      <summary id={titleId}>Remote targets{targets?.length ? ` (${targets.length})` : ''}</summary>
      <p className="muted">
        Send to another Tokenbench or the hosted service instead of this engine. The key you paste is kept by this engine, sealed; only its last
        four characters are shown again.
      </p>
      <Alert message={problem && `Could not list the remote targets: ${problem}`} />
      {targets && targets.length > 0 && (
        <ul className="remote-target-list" aria-label="Remote targets">
          {targets.map((target) => (
            <li key={target.id}>
              <strong>{target.name}</strong> <code>{target.base_url}</code> <span className="muted">key {keyHint(target.key_last4)}</span>
              <button type="button" className="small" aria-label={`Delete ${target.name}`} disabled={call.busy} onClick={() => setAsking(target)}>
                Delete…
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="remote-target-form" onSubmit={add}>
        <label>
          Name
          <input type="text" value={name} required onChange={(event) => setName(event.target.value)} />
        </label>
        <label>
          Base URL
          <input type="text" value={baseUrl} required spellCheck={false} placeholder="https://api.basistheory.com" onChange={(event) => setBaseUrl(event.target.value)} />
        </label>
        <label>
          API key
          <input type="password" value={apiKey} required autoComplete="off" onChange={(event) => setApiKey(event.target.value)} />
        </label>
        <button type="submit" disabled={call.busy}>
          Add remote target
        </button>
      </form>
      {asking && (
        <ConfirmDialog
          title={`Delete remote target “${asking.name}”?`}
          confirm={`Delete “${asking.name}”`}
          busy={call.busy}
          problem={call.problem}
          onConfirm={() => remove(asking)}
          onClose={() => setAsking(null)}
        >
          <p>
            The key Tokenbench keeps for it ({keyHint(asking.key_last4)}) is deleted with it: to send there again, add it with its key pasted anew.
          </p>
        </ConfirmDialog>
      )}
      <p role="status" className="muted">
        {done}
      </p>
      <Alert message={asking ? null : call.problem} />
    </details>
  );
}
