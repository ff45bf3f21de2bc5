import { useId, useState } from 'react';
import { PROXY_KEY_VARIABLE, snippetVariables } from '../../../../shared/snippets/request-snippet';
import type { SnippetFormat } from '../../../../shared/workbench/composer-contract';
import { lastFour } from '../../../../shared/workbench/key-name';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { wordList } from '../../components/format';
import { useComposerStore } from '../../state/composer-store';
import { useApplicationsStore } from '../../state/applications-store';
import { remoteTargetToUse, useRemoteTargetsStore } from '../../state/remote-targets-store';
import { useProxyChoicesStore } from '../../state/proxy-choices-store';
import { proxyOf, sendTarget } from './composer-actions';
import { headerPrefix } from '../../state/engine-store';
import { wireRequest } from './wire-request';
import { copyText } from '../../components/clipboard';

const FORMATS: Record<SnippetFormat, string> = { curl: 'cURL', node: 'Node' };

/**
 * The request as a client would send it to the target, as code on the clipboard. The engine writes it: the key lives
 * there, and is written in only when asked (an application's workbench key, recorded in History; a remote target's
 * key never); otherwise the code reads it from $BT_API_KEY. A secret a header refers to is always read from a
 * variable of its own.
 */
export function CopyAsCode() {
  const api = useWorkbenchApi();
  const refused = useComposerStore((state) => state.refused);
  const targetId = useComposerStore((state) => state.targetId);
  const targets = useRemoteTargetsStore((state) => state.value);
  const toRemote = targetId !== null && remoteTargetToUse(targets, targetId) !== null;
  const [keyAsked, setKeyAsked] = useState(false);
  const includeKey = keyAsked && !toRemote;
  const noteId = useId();
  const [copied, setCopied] = useState<string | null>(null);
  const call = useEngineCall();

  const copy = (format: SnippetFormat) =>
    void call.run(async () => {
      setCopied(null);
      const draft = useComposerStore.getState().draft;
      const wire = wireRequest(draft, headerPrefix());
      if (typeof wire === 'string') return refused(wire);
      const target = sendTarget();
      if (typeof target === 'string') return refused(target);
      const proxy = proxyOf(draft, useProxyChoicesStore.getState().value, target.remote !== null);
      if (typeof proxy === 'string') return refused(proxy);
      const reply = await api.requestSnippet({ ...target.to, ...proxy, ...wire, format, include_key: includeKey });
      await copyText(reply.snippet);
      // Writing the key in made it, on its first use: the Composer says which key it sends with.
      if (reply.key && !target.application?.workbench_key) void useApplicationsStore.refresh(api);
      const keyHeader = `${headerPrefix()}-API-KEY`.toLowerCase();
      const readsKey = !includeKey && !wire.headers.some(([name]) => name.toLowerCase() === keyHeader);
      // A secret is never written in, key or no key: its variable is always read.
      const variables = snippetVariables(wire.headers, readsKey).map(({ name }) => name);
      if (proxy.proxy_id !== undefined) variables.push(PROXY_KEY_VARIABLE);
      const set = variables.length === 0 ? '' : `Set ${wordList(variables)} before running it.`;
      const written = reply.key ? `, with the workbench's key ${lastFour(reply.key.key_last4)} written in: keep it private. History records it.` : '.';
      const through = proxy.proxy_id === undefined ? '' : ` through the proxy “${draft.proxy}”`;
      setCopied(`Copied as ${FORMATS[format]}${through}${written} ${set}`.trim());
    });

  return (
    <div className="copy-as">
      {(Object.keys(FORMATS) as SnippetFormat[]).map((format) => (
        <button key={format} type="button" className="small" disabled={call.busy} onClick={() => copy(format)}>
          Copy as {FORMATS[format]}
        </button>
      ))}
      <label>
        <input
          type="checkbox"
          checked={includeKey}
          disabled={toRemote}
          aria-describedby={toRemote ? noteId : undefined}
          onChange={(event) => setKeyAsked(event.target.checked)}
        />
        Include the key
      </label>
      {toRemote && (
        <span className="muted" id={noteId}>
          A remote target’s key stays in Tokenbench: the code reads it from BT_API_KEY.
        </span>
      )}
      {copied && (
        <span className="muted" role="status">
          {copied}
        </span>
      )}
      <Alert message={call.problem} />
    </div>
  );
}
