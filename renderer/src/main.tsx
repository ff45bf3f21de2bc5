import './api/zod-config';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectWorkbench } from './api/connect-workbench';
import { WorkbenchApiContext } from './api/workbench-api-context';
import { App } from './app/App';
import { startTheme } from './app/theme';
import { startLiveSync } from './state/live-sync';

startTheme();
const api = connectWorkbench();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <WorkbenchApiContext value={api}>
      <App />
    </WorkbenchApiContext>
  </StrictMode>,
);
void startLiveSync(api);
