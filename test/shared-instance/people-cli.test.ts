import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../electron/cli/serve-options';
import { LAUNCH_PATHS } from '../../shared/workbench/transport';
import { runServe } from '../support/serve-process';
import { filesIn, startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/**
 * `tokenbench credentials` in its own process, beside an engine running on the same data folder: what it creates signs
 * in at once, what it revokes is refused at once. And TOKENBENCH_SESSION_SECRET: the owner's session across restarts.
 */
const BIN = join(__dirname, '..', '..', 'bin', 'tokenbench.cjs');
const run = promisify(execFile);

async function credentials(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, 'credentials', ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

describe('tokenbench credentials', () => {
  it('creates, lists and revokes credentials while an engine runs on the folder, which sees each at once', async () => {
    const dataDir = tempDir();
    t = await startTestEngine({ dataDir, workbenchRoutes: true });
    const engine = t;

    const created = await credentials('create', 'alice', '--data-dir', dataDir);
    expect(created.code, created.stderr).toBe(0);
    const secret = /^\s+(tbw_[\w-]{43})$/m.exec(created.stdout)?.[1];
    expect(secret, created.stdout).toBeDefined();

    const signed = await engine.call('POST', LAUNCH_PATHS.signIn, { body: { credential: secret } });
    expect(signed.status, signed.text).toBe(200);
    const session = signed.body.session as string;
    expect((await engine.workbench('getIdentity', {}, { session })).body.person.name).toBe('alice');

    const listed = await credentials('list', '--data-dir', dataDir);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^NAME\s+CREATED\s+LAST USED\nalice\s+\d{4}-\d\d-\d\dT\S+\s+\d{4}-\d\d-\d\dT\S+$/m);
    expect(listed.stdout).not.toContain(secret!.slice(4));
    // Kept only as a hash: no file of the data folder (the vault, its WAL, History) holds the secret or the session.
    await engine.engine.history.flush();
    for (const file of filesIn(dataDir)) {
      const bytes = readFileSync(file);
      expect(bytes.includes(secret!.slice(4)), file).toBe(false);
      expect(bytes.includes(session), file).toBe(false);
    }

    const taken = await credentials('create', 'alice', '--data-dir', dataDir);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('exists already');

    const revoked = await credentials('revoke', 'alice', '--data-dir', dataDir);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await engine.workbench('getIdentity', {}, { session })).status).toBe(401);
    expect((await engine.call('POST', LAUNCH_PATHS.signIn, { body: { credential: secret } })).status).toBe(401);
    expect((await credentials('revoke', 'alice', '--data-dir', dataDir)).code).toBe(1);
    expect((await credentials('list', '--data-dir', dataDir)).stdout).toContain('No workbench credentials');
  });

  it('refuses a folder without a vault, and arguments it cannot take', async () => {
    const empty = tempDir();
    const none = await credentials('list', '--data-dir', empty);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`no vault in ${empty}`);
    expect((await credentials('create', '--data-dir', empty)).code).toBe(2);
    expect((await credentials('rename', 'a', '--data-dir', empty)).code).toBe(2);
  });
});

describe('TOKENBENCH_SESSION_SECRET', () => {
  const SECRET = Buffer.alloc(32, 7).toString('base64');

  it('is the owner session, in every run on the folder, and stays out of the address the engine prints', async () => {
    const options = parseServeArgs([], { TOKENBENCH_SESSION_SECRET: SECRET });
    expect(options).toMatchObject({ sessionSecret: SECRET });
    const dataDir = tempDir();
    const session = Buffer.alloc(32, 7).toString('base64url');
    for (let run = 0; run < 2; run++) {
      t = await startTestEngine({ dataDir, workbenchRoutes: true, sessionSecret: SECRET });
      expect(t.engine.browserWorkbench!.url).toBe(`${t.url}/ui/`);
      expect((await t.workbench('getStatus', {}, { session })).status).toBe(200);
      // Pasted into the sign-in form as base64, it signs the owner in.
      expect((await t.call('POST', LAUNCH_PATHS.signIn, { body: { credential: SECRET } })).body).toEqual({ session, name: null });
      await t.stop();
      t = undefined;
    }
  });

  it('is a usage error when malformed, and the message never repeats it', async () => {
    const short = Buffer.alloc(16, 9).toString('base64');
    const { code, output } = await runServe(['--in-memory', '--port', '0', '--echo-port', '0'], { env: { TOKENBENCH_SESSION_SECRET: short } });
    expect(code).toBe(2);
    expect(output).toContain('TOKENBENCH_SESSION_SECRET must be at least 32 random bytes');
    expect(output).not.toContain(short);
    expect(() => parseServeArgs([], { TOKENBENCH_SESSION_SECRET: 'not base64 at all!' })).toThrow('it is not shown');
  });
});
