import { SplitPane } from '../../components/SplitPane';
import { useApplicationsStore } from '../../state/applications-store';
import { useComposerStore } from '../../state/composer-store';
import { useProxyChoicesStore } from '../../state/proxy-choices-store';
import { useRemoteTargetsStore } from '../../state/remote-targets-store';
import { useComposerKeys } from './composer-actions';
import { CollectionsPanel } from './CollectionsPanel';
import { OPEN_REQUEST_PANEL, OpenRequests, tabIdOf } from './OpenRequests';
import { useRequestChecks } from './request-checks';
import { RequestPane } from './RequestPane';
import { ResponsePane } from './ResponsePane';
import './composer.css';

/** Compose a request, send it through the proxy or to the vault API, and see who answered. */
export function ComposerPage() {
  useApplicationsStore.useRefreshed();
  useRemoteTargetsStore.useRefreshed();
  useProxyChoicesStore.useRefreshed();
  useComposerKeys();
  useRequestChecks();
  const activeTab = useComposerStore((state) => state.activeTab);
  return (
    <div className="composer-page">
      <CollectionsPanel />
      <div className="composer-work">
        <OpenRequests />
        <div className="open-request-panel" role="tabpanel" id={OPEN_REQUEST_PANEL} aria-labelledby={tabIdOf(activeTab)}>
          <SplitPane label="Resize the request" storageKey="tokenbench.composer.split" initial={0.5} start={<RequestPane />} end={<ResponsePane />} />
        </div>
      </div>
    </div>
  );
}
