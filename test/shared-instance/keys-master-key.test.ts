import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { callApi, tempDir } from '../support/test-engine';
import { writePreviousVault } from '../support/previous-vault';
import { runServe, startServe, type ServeProcess } from '../support/serve-process';

const running: ServeProcess[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
});

const newKey = () => randomBytes(32).toString('base64');
const withKey = (key: string) => ({ ...process.env, TOKENBENCH_MASTER_KEY: key });
const ARGS = ['--port', '0', '--echo-port', '0'];
const WRONG_KEY = 'this vault was sealed with another master key';

async function serve(args: string[], env?: NodeJS.ProcessEnv) {
  const p = await startServe([...ARGS, ...args], { env });
  running.push(p);
  return p;
}

async function stop(p: ServeProcess) {
  p.child.kill('SIGTERM');
  expect(await p.exited).toBe(0);
  running.splice(running.indexOf(p), 1);
}

/** A vault with one token, made by a serve that `env` and `args` give its key; stopped again. */
async function vaultWithToken(dir: string, args: string[] = [], env?: NodeJS.ProcessEnv) {
  const p = await serve(['--data-dir', dir, ...args], env);
  const created = await callApi(p.url, 'POST', '/tokens', { key: p.privateKey, body: { type: 'token', data: 'kept secret' } });
  expect(created.status).toBe(201);
  await stop(p);
  return { id: created.body.id as string, privateKey: p.privateKey! };
}

async function detokenized(p: ServeProcess, key: string, id: string) {
  return (await callApi(p.url, 'POST', '/detokenize', { key, body: { value: `{{ ${id} }}` } })).body;
}

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('the master key from the environment or a file', () => {
  it('opens the vault from TOKENBENCH_MASTER_KEY or --master-key-file, and writes no key file into the data folder', async () => {
    const dir = tempDir();
    const key = newKey();
    const { id, privateKey } = await vaultWithToken(dir, [], withKey(key));
    expect(existsSync(join(dir, 'master.key'))).toBe(false);

    const keyFile = join(tempDir(), 'vault.key');
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
    const again = await serve(['--data-dir', dir, '--master-key-file', keyFile]);
    expect(await detokenized(again, privateKey, id)).toEqual({ value: 'kept secret' });
    await stop(again);
    expect(existsSync(join(dir, 'master.key'))).toBe(false);
  });

  it('refuses to start on a vault sealed with another key, before writing anything, and never prints a key', async () => {
    const dir = tempDir();
    const key = newKey();
    await vaultWithToken(dir, [], withKey(key));
    const before = digest(join(dir, 'tokenbench.sqlite'));

    const other = newKey();
    const wrong = await runServe([...ARGS, '--data-dir', dir], { env: withKey(other) });
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain(WRONG_KEY);
    expect(wrong.output).toContain('TOKENBENCH_MASTER_KEY');
    expect(wrong.output).not.toContain(other);
    expect(wrong.output).not.toContain(key);

    // Without any key, the folder has no key file: a new one would be just as wrong, so none is made.
    const none = await runServe([...ARGS, '--data-dir', dir]);
    expect(none.code).toBe(1);
    expect(none.output).toContain(WRONG_KEY);
    expect(existsSync(join(dir, 'master.key'))).toBe(false);
    expect(digest(join(dir, 'tokenbench.sqlite'))).toBe(before);
  });

  it("takes a vault from before check values on its key file's key only, and records the check then", async () => {
    const dir = tempDir();
    writePreviousVault(dir, [{ type: 'card_number', data: '4242424242424242' }]);
    const checkValue = () => {
      const db = new Database(join(dir, 'tokenbench.sqlite'), { readonly: true });
      const row = db.prepare("SELECT value FROM settings WHERE key = 'master_key_check'").get();
      db.close();
      return row;
    };
    expect(checkValue()).toBeUndefined();

    const wrong = await runServe([...ARGS, '--data-dir', dir], { env: withKey(newKey()) });
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain(WRONG_KEY);
    expect(checkValue()).toBeUndefined();

    const fileKey = readFileSync(join(dir, 'master.key'), 'utf8').trim();
    await stop(await serve(['--data-dir', dir], withKey(fileKey)));
    expect(checkValue()).toBeDefined();
  });

  it('refuses a malformed key, an unreadable key file and both at once with exit 2, never echoing the value', async () => {
    const dir = tempDir();
    const malformed = 'not-a-key-but-a-secret-0123456789';
    const fromEnv = await runServe([...ARGS, '--data-dir', dir], { env: withKey(malformed) });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.output).toContain('TOKENBENCH_MASTER_KEY must be 32 random bytes in base64');
    expect(fromEnv.output).toContain('openssl rand -base64 32');
    expect(fromEnv.output).not.toContain(malformed);

    const file = join(tempDir(), 'bad.key');
    writeFileSync(file, `${malformed}\n`);
    const fromFile = await runServe([...ARGS, '--data-dir', dir, '--master-key-file', file]);
    expect(fromFile.code).toBe(2);
    expect(fromFile.output).toContain(`--master-key-file ${file} must hold 32 random bytes in base64`);
    expect(fromFile.output).not.toContain(malformed);

    const missing = await runServe([...ARGS, '--data-dir', dir, '--master-key-file', join(dir, 'nowhere.key')]);
    expect(missing.code).toBe(2);
    expect(missing.output).toContain('cannot be read');

    const good = newKey();
    writeFileSync(file, good);
    const both = await runServe([...ARGS, '--data-dir', dir, '--master-key-file', file], { env: withKey(good) });
    expect(both.code).toBe(2);
    expect(both.output).toContain('TOKENBENCH_MASTER_KEY and --master-key-file exclude each other');
    expect(both.output).not.toContain(good);
    expect(existsSync(join(dir, 'tokenbench.sqlite'))).toBe(false);
  });
});
