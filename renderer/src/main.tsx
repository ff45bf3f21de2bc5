import './api/zod-config';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectWorkbench } from './api/connect-workbench';
import { WorkbenchApiContext } from './api/workbench-api-context';
import { App } from './app/App';
import { pageNamed } from './app/pages';
import { startTheme } from './app/theme';
import { startLiveSync } from './state/live-sync';
import { pageIdInAddress, pageOnShow } from './state/route';
import { checkWelcome } from './state/welcome-store';

startTheme();
const api = connectWorkbench(pageOnShow);
void startLiveSync(api);
// Once per page load: the engine gives a new vault's keys a single time. Its failures are the live sync's to tell.
checkWelcome(api).catch(() => undefined);

function render(): void {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <WorkbenchApiContext value={api}>
        <App />
      </WorkbenchApiContext>
    </StrictMode>,
  );
}

// The first page's code comes before the first render, so the page appears whole, not after its fallback; if it
// fails to load, the page's own render says so.
void Promise.resolve(pageNamed(pageIdInAddress())?.load()).then(render, render);
