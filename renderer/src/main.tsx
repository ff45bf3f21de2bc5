import './api/zod-config';
import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { WorkbenchError } from '../../shared/workbench/transport';
import { connectWorkbench } from './api/connect-workbench';
import { NO_SESSION, SESSION_ENDED } from './api/http-transport';
import { WorkbenchApiContext } from './api/workbench-api-context';
import { App } from './app/App';
import { pageNamed } from './app/pages';
import { SignIn } from './app/SignIn';
import { startTheme } from './app/theme';
import { useIdentityStore } from './state/identity-store';
import { startLiveSync } from './state/live-sync';
import { pageIdInAddress, pageOnShow } from './state/route';
import { checkWelcome } from './state/welcome-store';

startTheme();
const api = connectWorkbench(pageOnShow);
// The first page's code loads while the engine says whom the page acts for, so the page appears whole, not after its
// fallback; if it fails to load, the page's own render says so.
const firstPage = Promise.resolve(pageNamed(pageIdInAddress())?.load()).catch(() => undefined);

function render(root: ReactNode): void {
  createRoot(document.getElementById('root')!).render(<StrictMode>{root}</StrictMode>);
}

function start(): void {
  void startLiveSync(api);
  // Once per page load: the engine gives a new vault's keys a single time. Its failures are the live sync's to tell.
  checkWelcome(api).catch(() => undefined);
  void firstPage.then(() =>
    render(
      <WorkbenchApiContext value={api}>
        <App />
      </WorkbenchApiContext>,
    ),
  );
}

// No session, or one the engine refuses (ended, revoked), shows the sign-in form; any other failure (a launch link's
// used code, an engine not reached) is the workbench's to say, as it always was.
api.getIdentity().then(
  ({ person }) => {
    useIdentityStore.setState({ person });
    start();
  },
  (error: unknown) => {
    const text = error instanceof WorkbenchError && error.problem.status === 401 ? error.problem.detail : undefined;
    if (text !== NO_SESSION && text !== SESSION_ENDED) return start();
    render(<SignIn why={{ text, refused: text === SESSION_ENDED }} />);
  },
);
