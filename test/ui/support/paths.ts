import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..');
/** Where `npm run build` (and the e2e global setup) puts the renderer. */
export const UI_DIR = join(ROOT, 'out', 'renderer');
/** The production build of the headless CLI (`npm run build`): what the desktop app's main process bundles too. */
export const BUILT_CLI = join(ROOT, 'out', 'main', 'serve.js');
