/** The engine side of the GUI contract: the browser workbench over HTTP, and the live feed Electron's main reuses. */
export { createWorkbench, type Workbench, type WorkbenchFallback, type WorkbenchOptions, type WorkbenchSources } from './workbench';
export { LiveFeed, type LiveUpdate } from './live-feed';
