import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requestSnippetSchema, exchangeSchema } from '../../shared/workbench/composer-contract';
import { historyListSchema } from '../../shared/workbench/history-contract';
import { callMethod, problemOf } from '../../electron/engine/workbench';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * Code to copy: the cURL command and the Node.js script, run for real (curl through sh, node on a file), must get the
 * answer the Composer got for the same request.
 */
const PAN = '4242424242424242';
let bench: TestEngine;
let privateApp: string;
let scratch: string;

beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0 });
  privateApp = bench.engine.bootstrapKeys!.private.application_id;
  scratch = mkdtempSync(join(tmpdir(), 'tokenbench-snippet-'));
});
afterEach(async () => {
  await bench.stop();
  rmSync(scratch, { recursive: true, force: true });
});

type Target = { application_id: string; proxy_id?: string } | { target_id: string };
type Wire = { method: 'GET' | 'POST'; path: string; headers: [string, string][]; body: string | null };

async function snippet(format: 'curl' | 'node', wire: Wire, target: Target = { application_id: privateApp }, include_key = false): Promise<string> {
  return requestSnippetSchema.parse(await callMethod(bench.engine.workbench, 'requestSnippet', { ...target, ...wire, format, include_key })).snippet;
}

const execute = promisify(execFile);

/** Runs a snippet as a user would, the key in the environment only when given; asynchronously, for the engine runs here. */
async function run(format: 'curl' | 'node', code: string, apiKey?: string, more: Record<string, string> = {}): Promise<string> {
  const env = { PATH: process.env.PATH, HOME: '/nonexistent-home', ...(apiKey ? { BT_API_KEY: apiKey } : {}), ...more };
  const file = join(scratch, 'request.js');
  writeFileSync(file, code);
  const ran = format === 'curl' ? execute('sh', ['-c', code], { env, timeout: 20_000 }) : execute(process.execPath, [file], { env, timeout: 20_000 });
  return (await ran).stdout;
}

/** What the Composer shows for the same request: status and body. */
async function composer(wire: Wire, target: Target = { application_id: privateApp }) {
  const exchange = exchangeSchema.parse(await bench.engine.workbench.sendRequest({ id: crypto.randomUUID(), ...target, ...wire }));
  if (exchange.outcome.kind !== 'response') throw new Error('no answer');
  // As received: the Composer masks what the echo repeats of the card until the user reveals it, as one would to compare.
  const answer = exchange.outcome.masked > 0 ? await bench.engine.workbench.revealAnswer({ id: exchange.entry!.id }) : exchange.outcome;
  return { status: exchange.outcome.status, body: Buffer.from(answer.body_base64, 'base64').toString('utf8') };
}

/** What the echo destination saw that the request decides (a client's own headers, such as User-Agent, differ). */
const echoed = (text: string) => {
  const { method, path, query, body, headers } = JSON.parse(text);
  return { method, path, query, body, quoted: headers['x-quoted'], type: headers['content-type'] };
};

describe('code to copy', () => {
  it('cURL and Node send what the Composer sends, and get its answer, the key read from $BT_API_KEY', async () => {
    const created = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: PAN } });
    const wire: Wire = {
      method: 'POST',
      path: '/proxy/v1/charges?currency=eur&tag=a&tag=b',
      headers: [
        ['BT-PROXY-URL', bench.engine.echoUrl!],
        ['Content-Type', 'application/json'],
        ['X-Quoted', `it's "quoted", $HOME and \`pwd\``],
      ],
      body: `{\n  "pan": "{{ ${created.body.id} }}",\n  "note": "it's $HOME, \`pwd\`, \\\\ and é"\n}`,
    };
    const shown = await composer(wire);
    expect(shown.status).toBe(200);
    expect(echoed(shown.body).body).toContain(PAN);

    const curl = await snippet('curl', wire);
    expect(curl).toContain('--header "BT-API-KEY: $BT_API_KEY"');
    expect(curl).not.toContain(bench.privateKey);
    expect(echoed(await run('curl', curl, bench.privateKey))).toEqual(echoed(shown.body));

    const node = await snippet('node', wire);
    expect(node).not.toContain('require(');
    const [statusLine, ...rest] = (await run('node', node, bench.privateKey)).split('\n');
    expect(statusLine).toBe('200 OK');
    expect(echoed(rest.join('\n'))).toEqual(echoed(shown.body));
  });

  it('includes the key only when asked, and then needs no environment', async () => {
    const wire: Wire = { method: 'GET', path: '/tokens', headers: [], body: null };
    const shown = await composer(wire);
    for (const format of ['curl', 'node'] as const) {
      const code = await snippet(format, wire, { application_id: privateApp }, true);
      expect(code).not.toContain('BT_API_KEY');
      const out = await run(format, code);
      expect(out.endsWith(`${shown.body}\n`) || out === shown.body, format).toBe(true);
    }
  });

  it("records writing the key in as a reveal: the application by id and the key's last four, never the key", async () => {
    const wire: Wire = { method: 'GET', path: '/tokens', headers: [], body: null };
    await snippet('curl', wire);
    await bench.engine.history.flush();
    expect(await bench.engine.history.list(10)).toEqual([]);
    const reply = requestSnippetSchema.parse(await callMethod(bench.engine.workbench, 'requestSnippet', { application_id: privateApp, ...wire, format: 'node', include_key: true }, 'composer'));
    const [workbenchKey] = (await bench.engine.workbench.listApplicationDetails({})).find((app) => app.id === privateApp)!.keys.filter((key) => key.kept === 'workbench');
    expect(reply.key).toEqual({ key_id: workbenchKey.id, key_last4: expect.stringMatching(/^.{4}$/) });
    expect(reply.snippet).toMatch(new RegExp(`key_local_[\\w-]+${reply.key!.key_last4}`));

    await bench.engine.history.flush();
    const [revealed, made] = historyListSchema.parse(await callMethod(bench.engine.workbench, 'listHistory', { limit: 10 }));
    expect(made).toMatchObject({ kind: 'workbench', method: 'CREATE', workbench_page: 'composer', change: { action: 'requestSnippet' } });
    expect(revealed).toMatchObject({
      kind: 'workbench',
      method: 'REVEAL',
      path: `/applications/${privateApp}/keys/${workbenchKey.id}`,
      status: 200,
      application_id: privateApp,
      workbench_page: 'composer',
      reveal: {
        target: 'keys',
        keys: [{ application_id: privateApp, key_id: workbenchKey.id, key_last4: reply.key!.key_last4 }],
        summary: `Wrote the workbench's key …${reply.key!.key_last4} of application “Tokenbench backend” into a snippet`,
      },
    });
    expect(JSON.stringify([revealed, made])).not.toMatch(/key_local_[\w-]{8}/);
  });

  it('sends a text body as written, even one that curl would read as a file name', async () => {
    const wire: Wire = { method: 'POST', path: '/proxy', headers: [['BT-PROXY-URL', bench.engine.echoUrl!], ['Content-Type', 'text/plain']], body: '@/etc/hostname' };
    expect(echoed(await run('curl', await snippet('curl', wire), bench.privateKey)).body).toBe('@/etc/hostname');
    const nul: Wire = { ...wire, body: 'a\u0000b' };
    const refused = await callMethod(bench.engine.workbench, 'requestSnippet', { application_id: privateApp, ...nul, format: 'curl' }).catch(problemOf);
    expect(refused).toMatchObject({ status: 422, detail: 'A shell argument cannot hold a NUL character' });
  });

  it("addresses a remote target's base URL", async () => {
    const remote = await startTestEngine({ inMemory: true });
    try {
      const target = (await callMethod(bench.engine.workbench, 'addRemoteTarget', { name: 'r', base_url: remote.url, api_key: remote.privateKey })) as { id: string };
      const wire: Wire = { method: 'GET', path: '/tokens', headers: [], body: null };
      const code = await snippet('curl', wire, { target_id: target.id });
      expect(code).toContain(`--url '${remote.url}/tokens'`);
      expect(JSON.parse(await run('curl', code, remote.privateKey))).toMatchObject({ data: [] });

      // Its key is the user's own, shown by its last four only: never written into a snippet.
      const refused = await callMethod(bench.engine.workbench, 'requestSnippet', { target_id: target.id, ...wire, format: 'curl', include_key: true }).catch(problemOf);
      expect(refused).toMatchObject({ status: 400, errors: { include_key: [expect.stringContaining("A remote target's key never leaves the engine")] } });
      expect(JSON.stringify(refused)).not.toContain(remote.privateKey);
    } finally {
      await remote.stop();
    }
  });

  it('writes a reference to a secret as an environment variable the code reads, never its value', async () => {
    const STRIPE_KEY = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc';
    const CODE = `it's "q" $HOME`;
    await callMethod(bench.engine.workbench, 'setSecret' as 'addRemoteTarget', { name: 'stripe-test', value: STRIPE_KEY } as never);
    await callMethod(bench.engine.workbench, 'setSecret' as 'addRemoteTarget', { name: '2fa.code', value: CODE } as never);
    const wire: Wire = {
      method: 'GET',
      path: '/proxy/v1/me',
      headers: [
        ['BT-PROXY-URL', bench.engine.echoUrl!],
        ['Authorization', 'Bearer ${secret:stripe-test}'],
        ['X-Quoted', '"${secret:2fa.code}"x$HOME'],
        ['X-Empty', ''],
      ],
      body: null,
    };
    const curl = await snippet('curl', wire);
    expect(curl).toContain('--header "Authorization: Bearer $STRIPE_TEST"');
    expect(curl).toMatch(/^# .*BT_API_KEY.*STRIPE_TEST \(the secret stripe-test\).*SECRET_2FA_CODE \(the secret 2fa\.code\)/);
    const env = { STRIPE_TEST: STRIPE_KEY, SECRET_2FA_CODE: CODE };
    const sent = (text: string) => JSON.parse(text).headers;
    expect(sent(await run('curl', curl, bench.privateKey, env))).toMatchObject({ authorization: `Bearer ${STRIPE_KEY}`, 'x-quoted': `"${CODE}"x$HOME` });

    const node = await snippet('node', wire);
    expect(node).toContain('process.env.STRIPE_TEST');
    const [status, ...rest] = (await run('node', node, bench.privateKey, env)).split('\n');
    expect(status).toBe('200 OK');
    expect(sent(rest.join('\n'))).toMatchObject({ authorization: `Bearer ${STRIPE_KEY}`, 'x-quoted': `"${CODE}"x$HOME` });
    // Without the variable, the script says which one to set rather than sending an empty header.
    await expect(run('node', node, bench.privateKey)).rejects.toMatchObject({ stderr: expect.stringContaining('Set STRIPE_TEST') });

    // Even when the key is written in: a secret is only ever read from the environment.
    for (const format of ['curl', 'node'] as const) {
      const code = await snippet(format, wire, { application_id: privateApp }, true);
      expect(code).not.toContain(STRIPE_KEY);
      expect(code).not.toContain('sk_test_');
    }
  });

  it("through a pre-configured proxy: calls /proxy with the proxy's key read from $BT_PROXY_KEY, names the proxy, and gets the Composer's answer", async () => {
    const proxy = await bench.call('POST', '/proxies', { key: bench.managementKey, body: { name: 'charges', destination_url: `${bench.engine.echoUrl}/v1`, require_auth: false } });
    expect(proxy.status).toBe(201);
    const wire: Wire = { method: 'POST', path: '/proxy/pay?currency=eur', headers: [['Content-Type', 'application/json']], body: '{"amount": 5}' };
    const through = { application_id: privateApp, proxy_id: proxy.body.id as string };
    const shown = await composer(wire, through);
    expect(shown.status).toBe(200);
    expect(echoed(shown.body).path).toBe('/v1/pay');

    for (const format of ['curl', 'node'] as const) {
      const code = await snippet(format, wire, through);
      expect(code).toContain('Through the pre-configured proxy “charges”');
      expect(code).toContain('BT-PROXY-KEY');
      expect(code).toContain('BT_PROXY_KEY');
      expect(code).not.toContain(proxy.body.key);
      const out = await run(format, code, bench.privateKey, { BT_PROXY_KEY: proxy.body.key });
      expect(echoed(format === 'curl' ? out : out.split('\n').slice(1).join('\n'))).toEqual(echoed(shown.body));
    }
  });
});
