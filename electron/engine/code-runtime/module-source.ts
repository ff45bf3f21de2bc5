import { compileFunction } from 'node:vm';

/*
 * User code as a CommonJS module (vendor-surfaces.md §2.4): compiled once into a function of the module's free names,
 * which each invocation calls with fresh `module`, `exports` and `console`, so module state does not carry over.
 * `import()` stays refused: the function has no dynamic-import callback, so only `require` reaches modules.
 */

export type Require = (name: string) => unknown;

export type ModuleFactory = (
  exports: Record<string, unknown>,
  require: Require,
  module: { exports: unknown },
  filename: string,
  dirname: string,
  console: unknown,
) => void;

const PARAMETERS = ['exports', 'require', 'module', '__filename', '__dirname', 'console'];

/** Where code's stack traces say it is. */
export const CODE_FILENAME = '/code/index.js';

/** Compiles `code`; a syntax error throws with its line, as the developer needs it. */
export function compileModule(code: string): ModuleFactory {
  try {
    return compileFunction(code, PARAMETERS, { filename: CODE_FILENAME }) as ModuleFactory;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    // V8 puts the location on the stack's first line ("<file>:<line>") rather than in the message.
    const line = /:(\d+)\n/.exec(error.stack ?? '')?.[1];
    throw new SyntaxError(line ? `${error.message} (line ${line})` : error.message, { cause: error });
  }
}

/** Why `code` does not compile, or null: the check a save makes before code is accepted. */
export function syntaxError(code: string): string | null {
  try {
    compileModule(code);
    return null;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}
