import { useState } from 'react';
import type { AccessDecision, ReadAs as ReadAsAnswer } from '../../../../shared/workbench/token-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ApplicationSelect } from '../../components/ApplicationSelect';
import { applicationToUse, useApplicationsStore } from '../../state/applications-store';
import { useTokensStore } from '../../state/tokens-store';
import { dataSummary } from './token-format';

const TRANSFORM_WORDS = { mask: 'masked', reveal: 'plaintext', redact: 'redacted' } as const;

function Decision({ title, decision, children }: { title: string; decision: AccessDecision; children?: React.ReactNode }) {
  const tone = decision.transform === null ? 'refused' : 'allowed';
  return (
    <div className={`decision decision-${tone}`}>
      <h4>
        {title}: <span className="decision-verdict">{decision.transform === null ? 'refused' : TRANSFORM_WORDS[decision.transform]}</span>
      </h4>
      {children}
      <p>{decision.reason}</p>
    </div>
  );
}

/**
 * What another application would get of this token, by its access rules: the read (its masked data when masked;
 * plaintext is said, never shown), whether the proxy would use the token for it, and its other permissions.
 */
export function ReadAs({ tokenId, stagedIn }: { tokenId: string; stagedIn: string | null }) {
  const api = useWorkbenchApi();
  const applications = useApplicationsStore((state) => state.value) ?? [];
  const acting = applicationToUse(applications, useTokensStore((state) => state.applicationId));
  const [chosen, setChosen] = useState<string | null>(null);
  const [answer, setAnswer] = useState<ReadAsAnswer | null>(null);
  const { busy, problem, run } = useEngineCall();
  const applicationId = chosen ?? acting?.id ?? '';
  const read = () =>
    run(async () => setAnswer(await api.readTokenAs({ application_id: applicationId, token_id: tokenId, ...(stagedIn && { transaction_id: stagedIn }) })));
  return (
    <div className="read-as">
      <div className="read-as-line">
        <ApplicationSelect
          label="Application"
          applications={applications}
          value={applicationId}
          onChange={(id) => {
            setChosen(id);
            setAnswer(null);
          }}
        />
        <button type="button" onClick={() => void read()} disabled={busy || !applicationId}>
          Read as this application
        </button>
      </div>
      <Alert message={problem} />
      {answer && (
        <section className="read-as-answer" aria-label={`What ${answer.application.name} gets`}>
          <Decision title="Reading it" decision={answer.read}>
            {answer.read.transform === 'mask' && <pre className="body">{JSON.stringify(answer.read.data, null, 2)}</pre>}
            {answer.read.transform === 'reveal' && (
              <p className="muted">It reads the data in plaintext: acting as it, Reveal above shows it.</p>
            )}
            {answer.read.transform === 'redact' && <p className="muted">It gets the token without its data ({dataSummary(undefined)}).</p>}
          </Decision>
          <Decision title="Using it in the proxy" decision={answer.use} />
          <table className="other-permissions">
            <caption>Its other permissions on this token</caption>
            <tbody>
              {answer.others.map((decision) => (
                <tr key={decision.permission}>
                  <th scope="row">
                    <code>{decision.permission}</code>
                  </th>
                  <td className={decision.transform === null ? 'status-warn' : 'status-ok'}>
                    {decision.transform === null ? 'refused' : TRANSFORM_WORDS[decision.transform]}
                  </td>
                  <td>{decision.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}
