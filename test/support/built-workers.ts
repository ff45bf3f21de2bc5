/**
 * Set (to out/main) by the Playwright global setup once it has built the sources: the engines test-engine.ts starts
 * then load the built history and code workers instead of compiling their TypeScript in every new worker thread.
 */
export const TEST_BUILT_WORKERS_ENV = 'TOKENBENCH_TEST_BUILT_WORKERS';
