import { Alert } from '../../components/Alert';
import { ApplicationSelect } from '../../components/ApplicationSelect';
import { applicationToUse, useApplicationsStore } from '../../state/applications-store';
import { useComposerStore } from '../../state/composer-store';
import { useEngineStore } from '../../state/engine-store';
import { remoteTargetToUse, useRemoteTargetsStore } from '../../state/remote-targets-store';
import { EnvironmentSwitch } from './EnvironmentSwitch';
import { SendTo } from './RemoteTargets';
import { WorkbenchKey } from './WorkbenchKey';

/** Who the request is sent as, and the key the workbench keeps for it. */
export function SendAs() {
  const applications = useApplicationsStore((state) => state.value);
  const problem = useApplicationsStore((state) => state.problem);
  const chosen = useComposerStore((state) => state.applicationId);
  const choose = useComposerStore((state) => state.chooseApplication);
  const live = useEngineStore((state) => state.connection === 'live');
  const application = applicationToUse(applications, chosen);
  const targetId = useComposerStore((state) => state.targetId);
  const remote = remoteTargetToUse(useRemoteTargetsStore((state) => state.value), targetId);
  // Without the engine the shell says why; this would only say it again.
  if (!live && !applications) return <p className="muted">The applications to send as are listed once the engine is connected.</p>;
  if (problem) return <Alert message={`Could not list the applications: ${problem}`} />;
  if (!applications) return <p className="muted">Listing applications…</p>;
  if (remote) {
    return (
      <div className="send-as">
        <SendTo />
        <EnvironmentSwitch />
      </div>
    );
  }
  return (
    <div className="send-as">
      <SendTo />
      <ApplicationSelect label="Send as" applications={applications} value={application?.id ?? ''} onChange={choose} />
      <EnvironmentSwitch />
      {application && <WorkbenchKey application={application} />}
    </div>
  );
}
