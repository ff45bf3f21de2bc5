import { useState } from 'react';
import type { ApplicationDetail } from '../../../../shared/workbench/application-contract';
import type { ReadAs, ReadAsQuery } from '../../../../shared/workbench/token-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';

type Decision = ReadAs['use'];
type Draft = NonNullable<ReadAsQuery['draft']>;

const TRANSFORM_WORDS = { mask: 'masked', reveal: 'plaintext', redact: 'redacted' } as const;

function DecisionRow({ label, decision, data }: { label: string; decision: Decision; data?: unknown }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td>{decision.transform === null ? <strong className="status-error">refused</strong> : TRANSFORM_WORDS[decision.transform]}</td>
      <td>
        {decision.reason}
        {data !== undefined && (
          <>
            {' '}
            <code>{typeof data === 'string' ? data : JSON.stringify(data)}</code>
          </>
        )}
      </td>
    </tr>
  );
}

/** What the rules being edited (saved or not) give for a token the user names: the same policy code as the API's. */
export function RulesPreview({ application, draft }: { application: ApplicationDetail; draft: Draft }) {
  const api = useWorkbenchApi();
  const [tokenId, setTokenId] = useState('');
  const [preview, setPreview] = useState<ReadAs | null>(null);
  const { busy, problem, run } = useEngineCall();
  const ask = () => run(async () => setPreview(await api.readTokenAs({ application_id: application.id, token_id: tokenId.trim(), draft })));
  return (
    <section className="settings-subsection" aria-labelledby={`preview-${application.id}`}>
      <h4 id={`preview-${application.id}`}>Preview for a token</h4>
      <p className="muted settings-hint">What these rules, saved or not, give for one token: the same decision the API makes (the Tokens page’s “Read as…”).</p>
      <form
        className="settings-inline"
        onSubmit={(event) => {
          event.preventDefault();
          void ask();
        }}
      >
        <input type="text" spellCheck={false} placeholder="Token id" aria-label="Token to preview" value={tokenId} onChange={(event) => setTokenId(event.target.value)} />
        <button type="submit" className="small" disabled={busy || tokenId.trim() === ''}>
          Preview
        </button>
      </form>
      <Alert message={problem} />
      {preview && (
        <table className="headers" aria-label="What these rules give">
          <tbody>
            <DecisionRow label="Read" decision={preview.read} data={preview.read.data} />
            <DecisionRow label="Proxy" decision={preview.use} />
            {preview.others.map((decision) => (
              <DecisionRow key={decision.permission} label={decision.permission} decision={decision} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
