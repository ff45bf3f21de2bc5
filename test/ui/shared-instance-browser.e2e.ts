import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, expect, test, type Browser, type Page } from '@playwright/test';
import { freePort } from '../support/free-port';
import { runServe, startServe, type ServeProcess } from '../support/serve-process';
import { callApi, tempDir } from '../support/test-engine';
import { historyPage } from './support/history-page';
import { goToSettings, settingsSection } from './support/settings-page';
import { connectionState, engineFact, openPage } from './support/workbench-page';

/**
 * Issue 42's acceptance, end to end: one `serve` bound beyond loopback under `--public-url http://tokenbench.test:PORT`
 * (the browser resolves that name to loopback; no DNS), its master key from the environment. The API and the
 * workbench answer under that name and no other; a private destination and code are refused; two people made with
 * `tokenbench credentials` sign in and History names each; a backup taken under write load restores every write
 * acknowledged before it began, and only with the right key.
 */
const BIN = join(__dirname, '..', '..', 'bin', 'tokenbench.cjs');
const run = promisify(execFile);
const running: ServeProcess[] = [];
const servers: Server[] = [];
let browser: Browser | undefined;

test.afterEach(async () => {
  await browser?.close();
  for (const p of running.splice(0)) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [BIN, ...args]);
  return stdout;
}

/** A real HTTP server on loopback that answers 200: a private destination the proxy must not reach. */
async function loopbackDestination(): Promise<string> {
  const server = createServer((_req, res) => res.end('reached'));
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Chromium as the project launches it, resolving tokenbench.test to this machine. */
async function browserResolvingTokenbenchTest(): Promise<Browser> {
  const base = test.info().project.use.launchOptions ?? {};
  return chromium.launch({ ...base, args: [...(base.args ?? []), '--host-resolver-rules=MAP tokenbench.test 127.0.0.1'] });
}

async function signIn(page: Page, url: string, secret: string): Promise<void> {
  await page.goto(`${url}/ui/`);
  const form = page.getByRole('form', { name: 'Sign in to Tokenbench' });
  await form.getByRole('textbox', { name: 'Workbench credential' }).fill(secret);
  await form.getByRole('button', { name: 'Sign in' }).click();
  await expect(connectionState(page)).toHaveText('live');
}

/** The signed-in person makes a credential in Settings: a change History records under their name. */
async function makeCredentialIn(page: Page, name: string): Promise<void> {
  await openPage(page, 'Settings');
  const section = settingsSection(page, 'Workbench credentials');
  await section.getByRole('textbox', { name: 'Person’s name' }).fill(name);
  await section.getByRole('button', { name: 'Create credential' }).click();
  await section.getByRole('group', { name: `Credential of ${name}` }).getByRole('button', { name: 'Done' }).click();
}

test('a shared instance beyond loopback: its name only, no private destinations or code, people by name, backups that restore', async () => {
  test.setTimeout(120_000);
  const dataDir = tempDir();
  const key = randomBytes(32).toString('base64');
  const [port, echoPort] = [await freePort(), await freePort()];
  const publicUrl = `http://tokenbench.test:${port}`;
  const serve = await startServe(['--host', '0.0.0.0', '--port', String(port), '--echo-port', String(echoPort), '--public-url', publicUrl, '--data-dir', dataDir], {
    env: { TOKENBENCH_MASTER_KEY: key },
  });
  running.push(serve);
  const privateKey = serve.privateKey!;
  const managementKey = serve.managementKey!;
  const api = (method: string, path: string, options: Parameters<typeof callApi>[3] = {}) =>
    callApi(serve.url, method, path, { ...options, headers: { host: `tokenbench.test:${port}`, ...options.headers } });

  // The API answers under its public name, and under no other name.
  expect((await api('GET', '/tokens', { key: privateKey })).status).toBe(200);
  expect((await api('GET', '/tokens', { key: privateKey, headers: { host: `elsewhere.test:${port}` } })).status).toBe(403);

  // A private destination is refused, a real server listening there notwithstanding; the echo destination is not.
  const refused = await api('POST', '/proxy', { key: privateKey, body: { hi: 1 }, headers: { 'BT-PROXY-URL': await loopbackDestination() } });
  expect(refused.status).toBeGreaterThanOrEqual(400);
  expect(refused.text).not.toContain('reached');
  expect((await api('POST', '/proxy', { key: privateKey, body: { hi: 1 }, headers: { 'BT-PROXY-URL': `http://127.0.0.1:${echoPort}/v1` } })).status).toBe(200);

  // Code is refused without --allow-code.
  const coded = await api('POST', '/proxies', {
    key: managementKey,
    body: { name: 'coded', destination_url: 'https://example.com', request_transforms: [{ code: 'module.exports = async (req) => req;' }] },
  });
  expect(coded.status).toBe(403);
  expect(coded.body.detail).toContain('--allow-code');

  // Two people, made on the server beside the running service, sign in at the public name; History names each.
  const secretOf = (out: string) => /^\s+(tbw_[\w-]{43})$/m.exec(out)![1];
  const alice = secretOf(await cli('credentials', 'create', 'alice', '--data-dir', dataDir));
  const bob = secretOf(await cli('credentials', 'create', 'bob', '--data-dir', dataDir));
  browser = await browserResolvingTokenbenchTest();
  const asAlice = await (await browser.newContext()).newPage();
  await signIn(asAlice, publicUrl, alice);
  // The first to open the workbench is shown the first start's keys (serve printed them too), once.
  await asAlice.getByRole('dialog', { name: 'Welcome to Tokenbench' }).getByRole('button', { name: 'I have saved the keys' }).click();
  await expect(engineFact(asAlice, 'Signed in as')).toHaveText('alice');
  await makeCredentialIn(asAlice, 'carol');
  const asBob = await (await browser.newContext()).newPage();
  await signIn(asBob, publicUrl, bob);
  await makeCredentialIn(asBob, 'dave');
  await openPage(asAlice, 'History');
  const history = historyPage(asAlice);
  await expect(history.rows.filter({ hasText: 'Created workbench credential “carol”' })).toContainText('alice · Settings page');
  await expect(history.rows.filter({ hasText: 'Created workbench credential “dave”' })).toContainText('bob · Settings page');
  await goToSettings(asBob);

  // A backup under write load holds every token acknowledged before it began.
  const acknowledged: { id: string; value: string }[] = [];
  let writing = true;
  const writer = async (n: number) => {
    for (let i = 0; writing; i++) {
      const value = `writer ${n}, token ${i}`;
      const made = await api('POST', '/tokens', { key: privateKey, body: { type: 'token', data: value } });
      if (made.status === 201) acknowledged.push({ id: made.body.id, value });
    }
  };
  const writers = [1, 2, 3].map(writer);
  while (acknowledged.length < 100) await new Promise((done) => setTimeout(done, 20));
  const beforeBackup = [...acknowledged];
  const file = join(tempDir(), 'vault.backup');
  await cli('backup', file, '--data-dir', dataDir);
  writing = false;
  await Promise.all(writers);
  expect(acknowledged.length).toBeGreaterThan(beforeBackup.length);

  const restored = tempDir();
  mkdirSync(restored, { recursive: true });
  copyFileSync(file, join(restored, 'tokenbench.sqlite'));
  // With another key the restored vault refuses to start, and says why.
  const wrong = await runServe(['--port', '0', '--echo-port', '0', '--data-dir', restored], { env: { TOKENBENCH_MASTER_KEY: randomBytes(32).toString('base64') } });
  expect(wrong.code).toBe(1);
  expect(wrong.output).toContain('this vault was sealed with another master key');
  // With the right one, every acknowledged token is there with its value.
  const again = await startServe(['--port', '0', '--echo-port', '0', '--data-dir', restored], { env: { TOKENBENCH_MASTER_KEY: key } });
  running.push(again);
  for (let at = 0; at < beforeBackup.length; at += 20) {
    const batch = beforeBackup.slice(at, at + 20);
    const detokenized = await callApi(again.url, 'POST', '/detokenize', { key: privateKey, body: Object.fromEntries(batch.map(({ id }) => [id, `{{ ${id} }}`])) });
    expect(detokenized.status).toBe(200);
    expect(detokenized.body).toEqual(Object.fromEntries(batch.map(({ id, value }) => [id, value])));
  }
});
