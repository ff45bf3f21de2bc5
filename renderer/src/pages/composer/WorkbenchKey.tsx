import { useState } from 'react';
import type { ApplicationChoice } from '../../../../shared/workbench/application-contract';
import { keyName } from '../../../../shared/workbench/key-name';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { applicationUpdated } from '../../state/applications-store';

/**
 * The key the Composer sends with as this application, by its last four; revoked after a confirmation, and made anew
 * on the next send.
 */
export function WorkbenchKey({ application }: { application: ApplicationChoice }) {
  const api = useWorkbenchApi();
  const revoking = useEngineCall();
  const [asking, setAsking] = useState(false);
  const key = application.workbench_key;
  const revoke = () =>
    revoking.run(async () => {
      applicationUpdated(await api.revokeWorkbenchKey({ application_id: application.id }));
      setAsking(false);
    });
  return (
    <>
      <span className="workbench-key" aria-live="polite">
        {key ? (
          <>
            <span>
              Workbench key <code title={key.id}>{keyName(key)}</code>, made {new Date(key.created_at).toLocaleString()}
            </span>
            <button type="button" className="small" disabled={revoking.busy} onClick={() => setAsking(true)}>
              Revoke workbench key…
            </button>
          </>
        ) : (
          <span className="muted">No workbench key yet: one is made for “{application.name}” on the first send.</span>
        )}
      </span>
      {asking && key && (
        <ConfirmDialog
          title={`Revoke the workbench's key ${keyName(key)} of “${application.name}”?`}
          confirm={`Revoke key ${keyName(key)}`}
          busy={revoking.busy}
          problem={revoking.problem}
          onConfirm={() => void revoke()}
          onClose={() => setAsking(false)}
        >
          <p>The Composer stops sending with it, and makes another on its next send as “{application.name}”. A revoked key cannot come back.</p>
        </ConfirmDialog>
      )}
      <Alert message={asking ? null : revoking.problem} />
    </>
  );
}
