import { useState } from 'react';
import { PROXY_KEY_VARIABLE, SNIPPET_WRITERS, snippetThroughProxy } from '../../../../shared/snippets/request-snippet';
import { CopyButton } from '../../components/CopyButton';
import { useEngineStore } from '../../state/engine-store';
import { wireOf, type Sample } from './TryProxy';

type Format = keyof typeof SNIPPET_WRITERS;
const FORMATS: Record<Format, string> = { curl: 'cURL', node: 'Node (fetch)' };

/**
 * How a client calls this proxy, as code to copy: the sample request to /proxy with the proxy's key header, both keys
 * read from the environment (never written in), as the Composer's "Copy as" writes code.
 */
export function ProxySnippet({ proxy, sample }: { proxy: { name: string; key_last4: string }; sample: Sample }) {
  const status = useEngineStore((state) => state.status);
  const [format, setFormat] = useState<Format>('curl');
  if (!status) return null;
  const wire = wireOf(sample);
  const through = snippetThroughProxy(proxy, wire.headers, status.headerPrefix);
  const code = SNIPPET_WRITERS[format]({ method: wire.method, url: `${status.url}/proxy${wire.path}`, body: wire.body, ...through }, { header: `${status.headerPrefix}-API-KEY`, value: null });
  return (
    <section className="panel proxy-snippet" aria-labelledby="proxy-snippet-title">
      <h2 id="proxy-snippet-title">Call it</h2>
      <div className="segments" role="radiogroup" aria-label="Snippet language">
        {(Object.keys(FORMATS) as Format[]).map((option) => (
          <label key={option}>
            <input type="radio" name="proxy-snippet-format" checked={format === option} onChange={() => setFormat(option)} />
            {FORMATS[option]}
          </label>
        ))}
      </div>
      <pre className="code-block proxy-snippet-code" aria-label={`${FORMATS[format]} snippet`} tabIndex={0}>
        {code}
      </pre>
      <p className="muted proxy-hint">
        Set <code>{PROXY_KEY_VARIABLE}</code> to this proxy's key (…{proxy.key_last4}; <code>GET /proxies/{'{id}'}</code> with a management key answers it) and{' '}
        <code>BT_API_KEY</code> to the key of a private application with <code>proxy:invoke</code>.
      </p>
      <CopyButton text={code} label={`Copy the ${FORMATS[format]} snippet`} caption="Copy" />
    </section>
  );
}
