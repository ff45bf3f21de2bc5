import { SplitPane } from '../../components/SplitPane';
import { useApplicationList } from '../../state/applications-store';
import { useRemoteTargetList } from '../../state/remote-targets-store';
import { useComposerKeys } from './composer-actions';
import { CollectionsPanel } from './CollectionsPanel';
import { useRequestChecks } from './request-checks';
import { RequestPane } from './RequestPane';
import { ResponsePane } from './ResponsePane';
import './composer.css';

/** Compose a request, send it through the proxy or to the vault API, and see who answered. */
export function ComposerPage() {
  useApplicationList();
  useRemoteTargetList();
  useComposerKeys();
  useRequestChecks();
  return (
    <div className="composer-page">
      <CollectionsPanel />
      <SplitPane label="Resize the request" storageKey="tokenbench.composer.split" initial={0.5} start={<RequestPane />} end={<ResponsePane />} />
    </div>
  );
}
