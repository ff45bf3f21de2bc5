/** The code runtime's public face: what the proxy's code transform and reactors use. */
export { createCodeRuntime, type CodeRuntimeOptions, NODE_BT_TIMEOUT_MS, NODE22_DEFAULT_TIMEOUT_S } from './code-runtime';
export type * from './code-call';
export { failureProblem } from './failures';
export { syntaxError } from './module-source';
export { missingDependencies } from './dependencies';
