import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { callApi, tempDir } from '../support/test-engine';
import { startServe, type ServeProcess } from '../support/serve-process';

const BIN = join(__dirname, '..', '..', 'bin', 'tokenbench.cjs');
const running: ServeProcess[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
});

const env = { ...process.env, TOKENBENCH_MASTER_KEY: randomBytes(32).toString('base64') };

async function serve(dir: string) {
  const p = await startServe(['--port', '0', '--echo-port', '0', '--data-dir', dir], { env });
  running.push(p);
  return p;
}

/** `tokenbench backup ARGS`, to its end. */
function backup(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN, 'backup', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
}

// Each test starts several processes that compile the CLI as they start: on a loaded machine (CI) that takes longer
// than one test usually may.
describe('tokenbench backup', { timeout: 90_000 }, () => {
  it('copies the vault while serve takes writes: everything acknowledged before it began is in the copy, which serves again', async () => {
    const dir = tempDir();
    const p = await serve(dir);
    const acknowledged: { id: string; value: string }[] = [];
    let writing = true;
    const client = async (name: number) => {
      for (let n = 0; writing; n++) {
        const value = `client ${name} token ${n}`;
        const created = await callApi(p.url, 'POST', '/tokens', { key: p.privateKey, body: { type: 'token', data: value } });
        if (created.status === 201) acknowledged.push({ id: created.body.id, value });
      }
    };
    const clients = [1, 2, 3, 4].map(client);
    while (acknowledged.length < 200) await new Promise((r) => setTimeout(r, 20));

    const before = acknowledged.slice();
    const file = join(tempDir(), 'vault.backup');
    const done = await backup([file, '--data-dir', dir]);
    const duringBackup = acknowledged.length - before.length;
    writing = false;
    await Promise.all(clients);
    expect(done.output).toContain(`Backed up the vault in ${dir} to ${file}`);
    expect(done.output).toContain('TOKENBENCH_MASTER_KEY');
    expect(done.code).toBe(0);
    expect(duringBackup).toBeGreaterThan(0);
    // Written whole under its name: no temporary file is left beside it.
    expect(readdirSync(join(file, '..'))).toEqual(['vault.backup']);
    const copy = new Database(file, { readonly: true });
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    copy.close();

    const restored = tempDir();
    mkdirSync(restored, { recursive: true });
    copyFileSync(file, join(restored, 'tokenbench.sqlite'));
    const again = await serve(restored);
    for (let at = 0; at < before.length; at += 20) {
      const batch = before.slice(at, at + 20);
      const body = Object.fromEntries(batch.map(({ id }) => [id, `{{ ${id} }}`]));
      const answer = await callApi(again.url, 'POST', '/detokenize', { key: p.privateKey, body });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(Object.fromEntries(batch.map(({ id, value }) => [id, value])));
    }
    expect(existsSync(join(restored, 'master.key'))).toBe(false);
  });

  it('refuses to replace an existing file unless --force, and says so when the folder holds no vault', async () => {
    const dir = tempDir();
    const p = await serve(dir);
    const file = join(tempDir(), 'kept.backup');
    writeFileSync(file, 'an older backup');
    const refused = await backup([file, '--data-dir', dir]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`${file} exists: choose another file, or pass --force to replace it`);
    expect(readFileSync(file, 'utf8')).toBe('an older backup');

    const forced = await backup([file, '--data-dir', dir, '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(file).subarray(0, 15).toString()).toBe('SQLite format 3');
    p.child.kill('SIGTERM');

    const empty = tempDir();
    const none = await backup([join(empty, 'x.backup'), '--data-dir', empty]);
    expect(none.code).toBe(1);
    expect(none.output).toContain(`${empty} holds no vault`);
    expect(readdirSync(empty)).toEqual([]);

    const usage = await backup([]);
    expect(usage.code).toBe(2);
    expect(usage.output).toContain('Usage: tokenbench backup FILE');
  });
});
