// The house's lint rules, checked by `npm run lint` (and so by `npm test`); test/house/lint-rules.test.ts lints
// fixtures this configuration must flag. The application's code gets typescript-eslint's type-checked rules (unhandled
// promises are the crashes the engine must never have); tests, scripts and configs get the syntax-only rules, since the
// tests read engine replies as untyped JSON on purpose and type-aware linting doubles the check's time.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const application = ['electron/**/*.ts', 'renderer/src/**/*.{ts,tsx}', 'shared/**/*.ts'];

export default defineConfig(
  globalIgnores(['out/', 'dist/', 'test-results/', 'playwright-report/', 'bench/results/', 'scratch/', 'test/house/fixtures/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // tsc's noUnusedLocals/noUnusedParameters already take a leading underscore to mean "deliberately unused".
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: application,
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Interfaces declare callbacks in method syntax (`resume(): void`) that are arrow functions, as are zustand's
      // actions: every report here was a method that cannot lose its `this`.
      '@typescript-eslint/unbound-method': 'off',
      // Promises reject with the failure they caught, whatever its type, so that their callers classify it as it came.
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      // `async` without `await` is how a function turns a synchronous throw into a rejection (workbench-model's callMethod).
      '@typescript-eslint/require-await': 'off',
      // React ignores what an event handler returns; the workbench's handlers go through useEngineCall, which catches.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    files: ['electron/engine/expressions/**/*.ts'],
    rules: {
      // The expression scanners match JSON's control characters (U+0000–U+001F) on purpose.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read the engine's JSON replies as `any` on purpose: the reply's shape is what they assert.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: {
      // CommonJS files load their dependencies with require(): that is their module system, not a lapse.
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    files: ['renderer/src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat['recommended-latest']],
    languageOptions: { globals: globals.browser },
  },
);
