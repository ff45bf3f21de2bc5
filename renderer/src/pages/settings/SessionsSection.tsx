import { useState } from 'react';
import type { SessionInfo } from '../../../../shared/workbench/application-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ColumnHeads } from '../../components/ColumnHeads';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { formatCountdown } from '../../components/format';
import { useNow } from '../../components/now';
import { useApplicationsStore } from '../../state/applications-store';
import { useSessionsStore } from '../../state/client-access-stores';
import { ActionOutcome } from './SettingFields';

/** Where a rule reaches: the tokens its conditions name, or its container. */
const reach = (rule: SessionInfo['rules'][number]) =>
  rule.conditions?.length ? `token ${rule.conditions.map((condition) => condition.value).join(', ')}` : rule.container;

/** What an authorization lent a session: its bare permissions, then each rule as where, transform and permissions. */
function Granted({ session }: { session: SessionInfo }) {
  if (!session.authorized) return <span className="muted">nothing yet</span>;
  return (
    <ul className="session-grants">
      {session.permissions.length > 0 && (
        <li>
          <code>{session.permissions.join(', ')}</code>
        </li>
      )}
      {session.rules.map((rule) => (
        <li key={`${rule.priority}-${reach(rule)}`}>
          <code>{reach(rule)}</code> {rule.transform}: <code>{rule.permissions.join(', ')}</code>
        </li>
      ))}
    </ul>
  );
}

function SessionRow({ session, now, onRevoked }: { session: SessionInfo; now: number; onRevoked: (done: string) => void }) {
  const api = useWorkbenchApi();
  const [revoking, setRevoking] = useState(false);
  const { busy, problem, run } = useEngineCall();
  const of = `session of ${session.application_name}`;
  const authorizer = useApplicationsStore((state) => state.value?.find((application) => application.id === session.authorized_by)?.name ?? session.authorized_by);
  const revoke = () =>
    run(async () => {
      await api.revokeSession({ id: session.id });
      setRevoking(false);
      onRevoked(`Revoked the ${of}: its key is refused from now on.`);
      await useSessionsStore.refresh(api);
    });
  return (
    <>
      <tr>
        <td>{session.application_name}</td>
        <td>{session.authorized ? `Authorized by ${authorizer}` : 'Waiting for authorization'}</td>
        <td>
          <Granted session={session} />
        </td>
        <td className="time">
          <span className="countdown">{formatCountdown(Date.parse(session.expires_at) - now)}</span>
        </td>
        <td className="number secret-actions">
          <button type="button" className="small danger" aria-label={`Revoke the ${of}`} onClick={() => setRevoking(true)}>
            Revoke
          </button>
        </td>
      </tr>
      {revoking && (
        <tr className="secret-change">
          <td colSpan={5}>
            <ConfirmDialog title={`Revoke the ${of}?`} confirm="Revoke session" busy={busy} problem={problem} onConfirm={() => void revoke()} onClose={() => setRevoking(false)}>
              <p>Its key is refused (401) from the next request; the front end has to make a new session and have it authorized again.</p>
            </ConfirmDialog>
          </td>
        </tr>
      )}
    </>
  );
}

/**
 * Live sessions (docs/api.md, Sessions): which front end each belongs to, what its back end granted, and the time it
 * has left, counted down here so it leaves the list as it ends; never its key or nonce. Revoking one is the
 * workbench's own: the vendor has no route for it.
 */
export function SessionsSection() {
  const sessions = useSessionsStore((state) => state.value);
  const problem = useSessionsStore((state) => state.problem);
  const [done, setDone] = useState<string | null>(null);
  const now = useNow();
  useSessionsStore.useRefreshed();
  const alive = sessions?.filter((session) => Date.parse(session.expires_at) > now);
  return (
    <section className="panel settings-section" aria-labelledby="settings-sessions">
      <h2 id="settings-sessions">Sessions</h2>
      <p className="muted settings-hint">
        A front end’s public application makes a session (<code>POST /sessions</code>); its back end lends it permissions for minutes with the session’s
        nonce (<code>POST /sessions/authorize</code>). Listed while alive; a session’s key is shown only to the front end that made it.
      </p>
      <Alert message={problem} />
      {alive &&
        (alive.length === 0 ? (
          <p className="muted">None alive.</p>
        ) : (
          <table className="data-table" aria-label="Sessions">
            <ColumnHeads columns={['Application', 'State', 'Granted', 'Time left']} buttons="Actions" />
            <tbody>
              {alive.map((session) => (
                <SessionRow key={session.id} session={session} now={now} onRevoked={setDone} />
              ))}
            </tbody>
          </table>
        ))}
      <ActionOutcome done={done} problem={null} />
    </section>
  );
}
