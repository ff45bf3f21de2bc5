import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { RuntimeOptions } from './code-call';

/*
 * node22 `runtime.dependencies` (vendor-surfaces.md §1.4): the vendor installs them; Tokenbench cannot download, so
 * they are found, at their pinned versions, in the node_modules of a folder the caller names.
 */

/** Why the dependencies cannot be provided from `dir`, or null when each is there at its version. */
export function missingDependencies(runtime: RuntimeOptions, dir: string | undefined): string | null {
  const wanted = Object.entries(runtime.dependencies ?? {});
  if (wanted.length === 0) return null;
  if (!dir) return `${wanted.map(([name]) => name).join(', ')}: Tokenbench cannot download dependencies; name a folder whose node_modules holds them`;
  for (const [name, version] of wanted) {
    let found: string;
    try {
      found = (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string }).version ?? '';
    } catch {
      return `${name}@${version} is not in ${join(dir, 'node_modules')}`;
    }
    if (found !== version) return `${name}@${version} is wanted, ${join(dir, 'node_modules', name)} holds ${found || 'no version'}`;
  }
  return null;
}

/** `require` for the declared dependencies, resolved from `dir` (checked by missingDependencies first). */
export function dependencyRequire(dir: string): (name: string) => unknown {
  return createRequire(join(dir, 'package.json'));
}
