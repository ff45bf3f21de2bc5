import { execFile, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { SAVED_REQUEST } from '../support/saved-request';
import { tempDir } from '../support/test-engine';

/** A full disk for real needs a file system of its own: a tmpfs, mounted where only the child process sees it. */
const canMount = process.getuid?.() === 0 && spawnSync('unshare', ['--mount', '--propagation', 'private', 'true']).status === 0;

it('a save on a full disk answers 507, keeps the previous version byte for byte and leaves no temporary file', async (context) => {
  if (!canMount) context.skip('needs root and unshare(1): a full disk is a small tmpfs mounted in a private mount namespace');
  const folder = tempDir('tokenbench-full-disk-');
  try {
    // The mount lives and dies with the child's namespace: nothing outside it sees the tmpfs, nor has to unmount it.
    const script = 'mount -t tmpfs -o size=256k tmpfs "$1" && exec "$2" --require "$3" "$4" "$1"';
    const child = [process.execPath, require.resolve('tsx/cjs'), join(__dirname, 'collections-disk-full-child.ts')];
    const { stdout } = await promisify(execFile)('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', folder, ...child]);
    const got = JSON.parse(stdout);
    expect(got.saved).toBe(200);
    expect(got.overwrite).toMatchObject({ status: 507, detail: 'The disk is full: nothing was saved, and the previous version is kept. Free some space, then try again.' });
    expect(got.create).toMatchObject({ status: 507, detail: 'The disk is full: nothing was saved. Free some space, then try again.' });
    expect(got.kept).toBe(true);
    expect(got.collection).toEqual(['Charge.request.json']);
    expect(got.listed.collections[0].requests).toEqual([{ name: 'Charge', request: SAVED_REQUEST, problem: null, secrets_in_plain_text: [] }]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}, 60_000);
