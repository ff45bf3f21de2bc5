import { execFile } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MASTER_KEY_FILE } from '../../electron/engine/storage/crypto';

/** Starts that land on a fresh data folder together: a shell script's, or two windows of the app opened at once. */
const STARTS = 3;
/** Fresh folders, each started on by all of them at once: the creations overlap in some. */
const ROUNDS = 50;

describe('the master key', () => {
  it('is one key when several first starts create it at once: every start uses the key the file keeps', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--require', require.resolve('tsx/cjs'), join(__dirname, 'master-key-child.ts'), String(STARTS), String(ROUNDS)]);
    const rounds = JSON.parse(stdout) as { dir: string; kept: string; got: string[] }[];
    try {
      for (const { dir, kept, got } of rounds) {
        expect(got, dir).toEqual(Array(STARTS).fill(kept));
        expect(readdirSync(dir), 'no temporary file is left').toEqual([MASTER_KEY_FILE]);
      }
    } finally {
      for (const { dir } of rounds) rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
