import { PROXY_KEY_VARIABLE, SNIPPET_WRITERS, snippetThroughProxy } from '../../../../shared/snippets/request-snippet';
import { useEngineStore } from '../../state/engine-store';
import { SnippetPanel } from './SnippetPanel';
import { wireOf, type Sample } from './TryProxy';

/**
 * How a client calls this proxy, as code to copy: the sample request to /proxy with the proxy's key header, both keys
 * read from the environment (never written in), as the Composer's "Copy as" writes code.
 */
export function ProxySnippet({ proxy, sample }: { proxy: { name: string; key_last4: string }; sample: Sample }) {
  const status = useEngineStore((state) => state.status);
  if (!status) return null;
  const wire = wireOf(sample);
  const through = snippetThroughProxy(proxy, wire.headers, status.headerPrefix);
  const request = { method: wire.method, url: `${status.url}/proxy${wire.path}`, body: wire.body, ...through };
  const key = { header: `${status.headerPrefix}-API-KEY`, value: null };
  return (
    <SnippetPanel
      snippets={{ cURL: SNIPPET_WRITERS.curl(request, key), 'Node (fetch)': SNIPPET_WRITERS.node(request, key) }}
      hint={
        <>
          Set <code>{PROXY_KEY_VARIABLE}</code> to this proxy's key (…{proxy.key_last4}; <code>GET /proxies/{'{id}'}</code> with a management key answers it) and{' '}
          <code>BT_API_KEY</code> to the key of a private application with <code>proxy:invoke</code>.
        </>
      }
    />
  );
}
