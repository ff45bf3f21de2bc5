import './api/zod-config';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectWorkbench } from './api/connect-workbench';
import { WorkbenchApiContext } from './api/workbench-api-context';
import { App } from './app/App';
import { startTheme } from './app/theme';
import { startLiveSync } from './state/live-sync';
import { pageOnShow } from './state/route';
import { checkWelcome } from './state/welcome-store';

startTheme();
const api = connectWorkbench(pageOnShow);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <WorkbenchApiContext value={api}>
      <App />
    </WorkbenchApiContext>
  </StrictMode>,
);
void startLiveSync(api);
// Once per page load: the engine gives a new vault's keys a single time. Its failures are the live sync's to tell.
checkWelcome(api).catch(() => undefined);
