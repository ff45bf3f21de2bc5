import { useState } from 'react';
import { SNIPPET_WRITERS } from '../../../../shared/snippets/request-snippet';
import { CopyButton } from '../../components/CopyButton';
import { useEngineStore } from '../../state/engine-store';
import { wireOf, type Sample } from './TryProxy';

type Format = keyof typeof SNIPPET_WRITERS;
const FORMATS: Record<Format, string> = { curl: 'cURL', node: 'Node (fetch)' };

/** The environment variable the snippet reads the proxy's key from: the page never holds the key itself. */
const PROXY_KEY_VARIABLE = 'BT_PROXY_KEY';

/**
 * How a client calls this proxy, as code to copy: the sample request to /proxy with the proxy's key header, both keys
 * read from the environment (never written in), as the Composer's "Copy as" writes code.
 */
export function ProxySnippet({ keyLast4, sample }: { keyLast4: string; sample: Sample }) {
  const status = useEngineStore((state) => state.status);
  const [format, setFormat] = useState<Format>('curl');
  if (!status) return null;
  const wire = wireOf(sample);
  // A reference the writers read from the environment, as they do a saved request's secrets.
  const headers: [string, string][] = [...wire.headers, [`${status.headerPrefix}-PROXY-KEY`, `\${secret:${PROXY_KEY_VARIABLE}}`]];
  const code = SNIPPET_WRITERS[format]({ method: wire.method, url: `${status.url}/proxy${wire.path}`, headers, body: wire.body }, { header: `${status.headerPrefix}-API-KEY`, value: null });
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
      <pre className="proxy-snippet-code" aria-label={`${FORMATS[format]} snippet`} tabIndex={0}>
        {code}
      </pre>
      <p className="muted proxy-hint">
        Set <code>{PROXY_KEY_VARIABLE}</code> to this proxy's key (…{keyLast4}; <code>GET /proxies/{'{id}'}</code> with a management key answers it) and{' '}
        <code>BT_API_KEY</code> to the key of a private application with <code>proxy:invoke</code>.
      </p>
      <CopyButton text={code} label={`Copy the ${FORMATS[format]} snippet`} caption="Copy" />
    </section>
  );
}
