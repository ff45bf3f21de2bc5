import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where worker `name`'s built script is: in `builtWorkers` when a source run names a build of the same sources, else
 * beside the calling code of a build (`callerDir`: out/main, or out/main/chunks one folder below it). Undefined for a
 * source run without one, which must compile the worker's TypeScript instead.
 */
export function builtWorkerScript(name: string, callerDir: string, builtWorkers: string | undefined): string | undefined {
  const candidates = builtWorkers ? [join(builtWorkers, `${name}.js`)] : [join(callerDir, `${name}.js`), join(callerDir, '..', `${name}.js`)];
  return candidates.find(existsSync);
}
