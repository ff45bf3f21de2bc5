import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './child-process';
import { BUILT_CLI } from './servers';

export interface RefBuild {
  /** The commit built, abbreviated. */
  commit: string;
  /** The folder it was built in: that commit's tree, built, with this checkout's node_modules linked in. */
  dir: string;
  /** Absolute path of that commit's built CLI, which serves that commit's built workbench (out/renderer beside it). */
  cli: string;
}

/**
 * Another commit of this repository, built as `npm run build` builds it, outside the checkout (so no check or test
 * run here sees its files) and kept by commit, so later runs reuse it. Its packages are this checkout's: the
 * comparison is of the code, not of the dependencies.
 */
export function buildGitRef(ref: string, log: (line: string) => void): RefBuild {
  const commit = execFileSync('git', ['rev-parse', '--short=12', `${ref}^{commit}`], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const dir = join(tmpdir(), `tokenbench-build-${commit}`);
  const cli = join(dir, BUILT_CLI);
  if (existsSync(cli)) return { commit, dir, cli };
  log(`building ${ref} (${commit}) in ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git archive --format=tar ${commit} | tar -x -C '${dir}'`], { cwd: REPO_ROOT, stdio: 'inherit' });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  const built = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: dir, stdio: 'inherit' });
  if (built.status !== 0 || !existsSync(cli)) throw new Error(`building ${ref} failed (exit ${built.status ?? built.signal})`);
  return { commit, dir, cli };
}

/** A build a suite measures beside others: this checkout's own, or another commit's built apart. */
export interface ComparedBuild {
  /** "this build", or "<ref> (<commit>)". */
  name: string;
  /** Its built CLI; undefined: this checkout's (servers.ts BUILT_CLI). */
  cli?: string;
}

export const THIS_BUILD: ComparedBuild = { name: 'this build' };

/** The builds of `refs` (made apart, see buildGitRef), then this build: the order a suite lists and measures them in. */
export function buildsToCompare(refs: readonly string[], log: (line: string) => void): ComparedBuild[] {
  return [
    ...refs.map((ref) => {
      const { commit, cli } = buildGitRef(ref, log);
      return { name: `${ref} (${commit})`, cli };
    }),
    THIS_BUILD,
  ];
}
