import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { randomBytes } from 'node:crypto';
import { rendererCsp, STYLE_NONCE_META } from './shared/content-security-policy';

// Our folders are not electron-vite's default src/{main,preload,renderer}: each input is named (toolchain pitfall 1).
const root = (path: string) => resolve(__dirname, path);

/**
 * The production CSP as a <meta>, with the style nonce the page hands its code editor: Electron loads the renderer
 * from a file, which carries no headers. The engine swaps this build's nonce for a fresh one on every page it serves.
 */
function contentSecurityPolicyMeta(): Plugin {
  const nonce = randomBytes(18).toString('base64');
  return {
    name: 'tokenbench-csp-meta',
    // The dev server's React refresh preamble is an inline script, which this policy forbids.
    apply: 'build',
    transformIndexHtml: () => [
      { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: rendererCsp(nonce) }, injectTo: 'head-prepend' },
      { tag: 'meta', attrs: { name: STYLE_NONCE_META, content: nonce }, injectTo: 'head' },
    ],
  };
}

export default defineConfig({
  main: {
    build: {
      outDir: root('out/main'),
      // The history worker and the code runtime's worker are entries of their own: a worker thread loads a file, so each
      // must exist as out/main/<name>.js.
      // The headless CLI is built too (out/main/serve.js): the benchmark measures this build, as the app ships it.
      // So is `npm start`'s browser mode (out/main/browser-mode.js), the desktop app's engine without Electron.
      rolldownOptions: {
        input: {
          index: root('electron/main/index.ts'),
          'history-worker': root('electron/engine/history/history-worker.ts'),
          'code-runtime-worker': root('electron/engine/code-runtime/code-runtime-worker.ts'),
          serve: root('electron/cli/serve.ts'),
          'browser-mode': root('electron/main/browser-mode.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: root('out/preload'),
      // A sandboxed preload may require nothing but electron: the method table's schemas (zod) are bundled in.
      externalizeDeps: { exclude: ['zod'] },
      rolldownOptions: { input: { index: root('electron/preload/index.ts') } },
    },
  },
  renderer: {
    root: root('renderer'),
    // Relative asset URLs work both from file:// (Electron) and under /ui/ (served by the engine).
    base: './',
    plugins: [react(), contentSecurityPolicyMeta()],
    build: {
      outDir: root('out/renderer'),
      // electron-vite leaves the renderer unminified, and the page parses all of its code before the first paint.
      minify: true,
      rolldownOptions: {
        input: { index: root('renderer/index.html') },
        // zod and the page's zod-config in one chunk that every user of zod imports: the config (no eval probe, which the
        // CSP reports) is then set before any module parses, wherever the chunking puts the modules that parse at load.
        output: { codeSplitting: { groups: [{ name: 'zod', test: /[\\/](node_modules[\\/]zod[\\/]|renderer[\\/]src[\\/]api[\\/]zod-config\.ts$)/ }] } },
      },
    },
  },
});
