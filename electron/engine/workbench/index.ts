/** The engine's side of the workbench: the model both transports serve, and the browser workbench over HTTP. */
export { createBrowserWorkbench, type BrowserWorkbench, type BrowserWorkbenchOptions } from './browser-workbench';
export { callMethod, createWorkbenchModel, problemOf, type WorkbenchSources } from './workbench-model';
export { frontDoor, type FrontDoor } from './front-door';
export { proxySettings } from './proxy-settings';
export { reactorSettings } from './reactor-settings';
export { webhookSettings } from './webhook-settings';
export { RemoteTargets } from './remote-targets';
export { Welcome } from './welcome';
export { actionRecorder } from './workbench-actions';
export { callKeyApplicationSet, runtimeKeyMade } from './workbench-records';
