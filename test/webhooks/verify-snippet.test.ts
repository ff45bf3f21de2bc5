import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySnippets } from '../../shared/snippets/webhook-verify-snippet';
import { freePort } from '../support/free-port';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';
import { startWebhookReceiver, type ReceivedDelivery, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * The Webhooks page's verification snippets do what they say: each is run as a user would run it, against a real
 * delivery a loopback receiver captured, and accepts it; the same bytes changed by one character are refused.
 */
let t: TestEngine;
let receiver: WebhookReceiver;
let delivery: ReceivedDelivery;
const dir = tempDir('tokenbench-verify-');

/** The delivery's body with one character of its event id changed: what a forger or a proxy in between might send. */
const tampered = () => delivery.raw.replace(/"id":"(.)/, (_, first: string) => `"id":"${first === 'a' ? 'b' : 'a'}`);

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, workbenchRoutes: true });
  receiver = await startWebhookReceiver();
  const made = await t.workbench('createWebhook', { name: 'capture', url: receiver.url, notify_email: null, events: ['token.created'] });
  await t.workbench('sendWebhookTest', { id: made.body.id });
  [delivery] = await receiver.waitFor(1);
});
afterAll(async () => {
  await receiver.close();
  await t.stop();
  rmSync(dir, { recursive: true, force: true });
});

const snippetsFor = (port: number) => verifySnippets({ keyUrl: `${t.url}/keys/webhooks.v1.key`, headerPrefix: 'BT', webhookUrl: `http://localhost:${port}/hooks` });

describe('the Node snippet', () => {
  let child: ChildProcess;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    const file = join(dir, 'receiver.mjs');
    writeFileSync(file, snippetsFor(port).node);
    child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
      child.on('exit', (code) => reject(new Error(`the snippet exited with ${code}`)));
    });
  });
  afterAll(() => void child.kill());

  const post = (body: string, signature: string) =>
    fetch(`http://127.0.0.1:${port}/hooks`, { method: 'POST', headers: { 'content-type': 'application/json', 'BT-SIGNATURE': signature, 'BT-SIGNATURE-VERSION': '1' }, body });

  it('accepts a real delivery as it was sent', async () => {
    expect((await post(delivery.raw, delivery.headers['bt-signature'] as string)).status).toBe(200);
  });

  it('refuses the same delivery changed by one character', async () => {
    expect((await post(tampered(), delivery.headers['bt-signature'] as string)).status).toBe(401);
  });

  it('receives deliveries the engine sends to it', async () => {
    const made = await t.workbench('createWebhook', { name: 'snippet', url: `http://127.0.0.1:${port}/hooks`, notify_email: null, events: ['token.created'] });
    await t.workbench('sendWebhookTest', { id: made.body.id });
    await expect.poll(async () => (await t.workbench('listWebhookDeliveries', { id: made.body.id })).body[0]?.last_status, { timeout: 10_000 }).toBe(200);
  });
});

const openssl = spawnSync('which', ['openssl']).status === 0;

describe.runIf(openssl)('the cURL and openssl snippet', () => {
  /** Runs the script in a shell, as a user pastes it; asynchronously, since curl asks the engine in this process. */
  const run = (body: string) => {
    writeFileSync(join(dir, 'body.json'), body);
    const script = snippetsFor(3000)['cURL + openssl'];
    const env = { ...process.env, SIGNATURE: delivery.headers['bt-signature'] as string };
    return new Promise<{ code: number; output: string }>((resolve) =>
      execFile('sh', ['-e', '-c', script], { cwd: dir, env }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, output: stdout + stderr })),
    );
  };

  it('verifies a real delivery saved as it was received', async () => {
    const result = await run(delivery.raw);
    expect(result.output).toContain('Verified OK');
    expect(result.code).toBe(0);
  });

  it('fails on the same delivery changed by one character', async () => {
    const result = await run(tampered());
    expect(result.output).toContain('Verification failure');
    expect(result.code).not.toBe(0);
  });
});
