import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectWorkbench } from './api/connect-workbench';
import { App } from './app/App';
import { startLiveSync } from './state/live-sync';
import './app/app.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
void startLiveSync(connectWorkbench());
