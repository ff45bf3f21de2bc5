// ESLint, with the project's own configuration, must flag each fixture under fixtures/eslint/ for the rule named
// below. The fixtures sit in a copy of the project's layout (with a tsconfig.json extending the project's) so that the
// configuration's per-folder blocks apply to them as they would to the real files.
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(import.meta.dirname, 'fixtures', 'eslint');

// Type-aware linting builds a TypeScript program first: seconds on an idle machine, much more on a busy shared one.
const timeout = 120_000;

it('flags an unhandled promise in the engine, a conditional hook in the renderer and an uncalled assertion in a test', async () => {
  const eslint = new ESLint({ cwd: fixtures, overrideConfigFile: join(root, 'eslint.config.mjs') });
  const results = await eslint.lintFiles(['.']);
  const flagged = Object.fromEntries(
    results.map((result) => [result.filePath.slice(fixtures.length + 1), result.messages.map((message) => message.ruleId ?? message.message)]),
  );
  expect(flagged).toEqual({
    'electron/engine/vault/token-writer.ts': ['@typescript-eslint/no-floating-promises'],
    'renderer/src/pages/history/HistoryPage.tsx': ['react-hooks/rules-of-hooks'],
    'test/uncalled-assertion.ts': ['@typescript-eslint/no-unused-expressions'],
  });
}, timeout);
