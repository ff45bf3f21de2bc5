import { useState } from 'react';
import type { ApplicationDetail } from '../../../../shared/workbench/contract';
import type { WorkbenchApi } from '../../../../shared/workbench/methods';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';

/** How the rules decide one permission on a token, and why (the shape readTokenAs answers with). */
interface Decision {
  permission: string;
  transform: 'redact' | 'mask' | 'reveal' | null;
  reason: string;
}

/** What an application, or a draft of its rules, would get of one token: the read (with masked data), the proxy's use, the rest. */
export interface ReadAsPreview {
  read: Decision & { data?: unknown };
  use: Decision;
  others: Decision[];
}

export interface ReadAsRequest {
  application_id: string;
  token_id: string;
  draft: { permissions: string[]; rules: unknown[] };
}

/**
 * Where the preview asks the engine. The Tokens page's "Read as…" method, readTokenAs (issue 27, built alongside),
 * answers exactly this, draft included; it is not in this branch's method table, so the lead connects it on merging
 * the two: `read: (api, request) => api.readTokenAs(request)`. Until then the preview says it is not connected.
 */
export const rulesPreviewSource: { read: ((api: WorkbenchApi, request: ReadAsRequest) => Promise<ReadAsPreview>) | null } = { read: null };

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
export function RulesPreview({ application, draft }: { application: ApplicationDetail; draft: ReadAsRequest['draft'] }) {
  const api = useWorkbenchApi();
  const [tokenId, setTokenId] = useState('');
  const [preview, setPreview] = useState<ReadAsPreview | null>(null);
  const { busy, problem, run } = useEngineCall();
  const read = rulesPreviewSource.read;
  const ask = () => read && run(async () => setPreview(await read(api, { application_id: application.id, token_id: tokenId.trim(), draft })));
  return (
    <section className="settings-subsection" aria-labelledby={`preview-${application.id}`}>
      <h4 id={`preview-${application.id}`}>Preview for a token</h4>
      {read === null ? (
        <p className="muted settings-hint">
          The preview reads a token as these rules would, through the Tokens page’s “Read as…” (readTokenAs), which this build does not have yet.
        </p>
      ) : (
        <>
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
        </>
      )}
    </section>
  );
}
