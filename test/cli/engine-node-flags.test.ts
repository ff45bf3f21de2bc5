import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_NODE_FLAGS } from '../../electron/cli/engine-node-flags';

// V8 takes these flags only at process start, so each launcher must pass them itself; a launcher that drifts from
// the list loses them without any error.
const ROOT = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe("the engine's Node flags reach every launcher that can pass them", () => {
  it('npm run serve starts the engine with them', () => {
    const serve: string = JSON.parse(read('package.json')).scripts.serve;
    expect(serve).toBe(`exec tsx ${ENGINE_NODE_FLAGS.join(' ')} electron/cli/serve.ts`);
  });

  it("npm start hands them to Electron's main process, and in a browser to the engine's Node", () => {
    const start = read('scripts/start.mjs');
    expect(start).toContain(`const ENGINE_NODE_FLAGS = [${ENGINE_NODE_FLAGS.map((flag) => `'${flag}'`).join(', ')}];`);
    expect(start).toContain("runApp(binary, [`--js-flags=${ENGINE_NODE_FLAGS.join(' ')}`, root]");
    expect(start).toContain("runApp(process.execPath, [...ENGINE_NODE_FLAGS, join(root, 'out', 'main', 'browser-mode.js')]);");
  });
});
