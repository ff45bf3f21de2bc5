import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..');
/** Where `npm run build` (and the e2e global setup) puts the renderer. */
export const UI_DIR = join(ROOT, 'out', 'renderer');
