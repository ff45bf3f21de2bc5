import { useEffect, useState } from 'react';
import { verifySnippets } from '../../../../shared/snippets/webhook-verify-snippet';
import type { WebhookView } from '../../../../shared/workbench/webhook-contract';
import { messageOf } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { CopyButton } from '../../components/CopyButton';
import { useHeaderPrefix } from '../../state/engine-store';
import { SnippetPanel } from '../proxies/SnippetPanel';

/**
 * How a receiver checks that a delivery came from this Tokenbench: the public key the engine serves, to copy, and a
 * Node receiver and a cURL + openssl check that verify the signature with it.
 */
export function VerifySignatures({ webhook }: { webhook: WebhookView }) {
  const api = useWorkbenchApi();
  const prefix = useHeaderPrefix();
  const [key, setKey] = useState<{ public_key_pem: string; url: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    api.webhookSigningKey().then(setKey, (error: unknown) => setProblem(messageOf(error)));
  }, [api]);
  if (!key) return <Alert message={problem && `Could not read the signing key: ${problem}. Is the engine running?`} />;
  const snippets = verifySnippets({ keyUrl: key.url, headerPrefix: prefix, webhookUrl: webhook.url });
  return (
    <>
      <section className="panel webhook-key" aria-labelledby="webhook-key-title">
        <div className="panel-head">
          <h2 id="webhook-key-title">Signing key</h2>
          <CopyButton text={key.public_key_pem} label="Copy the public key" caption="Copy" />
        </div>
        <p className="muted proxy-hint">
          Every delivery carries <code>{prefix}-SIGNATURE</code>: RSA-PSS with SHA-256 over the body as sent, made with this install’s key. Its public half, also served at{' '}
          <span className="mono">{key.url}</span>:
        </p>
        <pre className="code-block" aria-label="Public key" tabIndex={0}>
          {key.public_key_pem}
        </pre>
      </section>
      <SnippetPanel
        title="Verify a delivery"
        snippets={{ Node: snippets.node, 'cURL + openssl': snippets['cURL + openssl'] }}
        hint={
          <>
            Node: a receiver on the webhook’s port that answers 401 to a delivery whose signature does not verify. openssl: save a delivery’s body byte for byte as <code>body.json</code> and
            its <code>{prefix}-SIGNATURE</code> header in <code>$SIGNATURE</code>; it prints “Verified OK”.
          </>
        }
      />
    </>
  );
}
