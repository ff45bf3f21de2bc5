import { SplitPane } from '../../components/SplitPane';
import { useApplications } from '../../state/applications-store';
import { useComposerKeys } from './composer-actions';
import { RequestPane } from './RequestPane';
import { ResponsePane } from './ResponsePane';
import './composer.css';

/** Compose a request, send it through the proxy or to the vault API, and see who answered. */
export function ComposerPage() {
  useApplications();
  useComposerKeys();
  return <SplitPane label="Resize the request" storageKey="tokenbench.composer.split" initial={0.5} start={<RequestPane />} end={<ResponsePane />} />;
}
