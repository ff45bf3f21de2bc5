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

  it("npm start hands them to Electron's main process", () => {
    expect(read('scripts/start-desktop.mjs')).toContain(`spawn(binary, ['--js-flags=${ENGINE_NODE_FLAGS.join(' ')}', root]`);
  });
});
