import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callMethod } from '../../electron/engine';
import type { ImportedRequests, SavedRequest } from '../../shared/workbench/collection-contract';
import { exchangeSchema } from '../../shared/workbench/composer-contract';
import { wireRequest } from '../../renderer/src/pages/composer/wire-request';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** Importing a pasted cURL command or HAR into the Composer's request: parsed in the engine, sent as the original. */
const PAN = '4111111111111111';
let t: TestEngine;
beforeEach(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0, workbenchRoutes: true });
});
afterEach(() => t.stop());

const importText = (text: string) => callMethod(t.engine.workbench, 'importRequests', { text }) as Promise<ImportedRequests>;
const only = async (text: string) => {
  const { requests } = await importText(text);
  expect(requests).toHaveLength(1);
  return requests[0];
};
const refusal = (text: string) => importText(text).then(() => expect.unreachable('imported'), (error: { status: number; detail: string }) => error);

/** Sends a request as the Composer does: wired by the page's own code, as the bootstrap private application. */
async function sendAsComposer(request: SavedRequest) {
  const wired = wireRequest(request, 'BT');
  if (typeof wired === 'string') throw new Error(wired);
  const reply = await t.engine.workbench.sendRequest({ id: 'import-1', application_id: t.engine.bootstrapKeys!.private.application_id, ...wired });
  const { outcome, entry } = exchangeSchema.parse(reply);
  if (outcome.kind !== 'response') throw new Error(`no response: ${outcome.kind}`);
  // As received: the Composer masks what the echo repeats of the card until the user reveals it, as one would to compare.
  const answer = outcome.masked > 0 ? await t.engine.workbench.revealAnswer({ id: entry!.id }) : outcome;
  return { status: outcome.status, body: Buffer.from(answer.body_base64, 'base64').toString('utf8') };
}

describe('importing a cURL command', () => {
  it('sends it from the Composer with the same answer curl got, the key left out', async () => {
    const token = (await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', data: PAN } })).body;
    const command = [
      `curl -X POST '${t.url}/proxy/v1/charges?amount=10'`,
      `-H "BT-API-KEY: $BT_API_KEY"`,
      `-H 'BT-PROXY-URL: ${t.engine.echoUrl}'`,
      `-H 'Content-Type: application/json'`,
      `-H 'X-Order: o-1'`,
      `-d '{"pan":"{{ ${token.id} }}"}'`,
    ].join(' \\\n  ');
    const { stdout } = await promisify(execFile)('sh', ['-c', `${command} --silent --write-out '\\n%{http_code}'`], { env: { ...process.env, BT_API_KEY: t.privateKey } });
    const curlStatus = Number(stdout.slice(stdout.lastIndexOf('\n') + 1));
    const curlEcho = JSON.parse(stdout.slice(0, stdout.lastIndexOf('\n')));
    expect(curlStatus).toBe(200);
    expect(curlEcho.body).toBe(`{"pan":"${PAN}"}`);

    const imported = await only(command);
    expect(imported.request).toEqual({
      kind: 'proxy',
      method: 'POST',
      target: `${t.engine.echoUrl}/v1/charges?amount=10`,
      headers: [{ name: 'X-Order', value: 'o-1', enabled: true }],
      service: { transaction: '', trace: '', keepAlive: '', connection: '' },
      bodyMode: 'json',
      body: `{"pan":"{{ ${token.id} }}"}`,
    });
    expect(imported.notes.join(' ')).toContain('The API key was left out');
    const sent = await sendAsComposer(imported.request);
    expect(sent.status).toBe(curlStatus);
    const echo = JSON.parse(sent.body);
    expect([echo.method, echo.path, echo.query, echo.body, echo.headers['x-order']]).toEqual([curlEcho.method, curlEcho.path, curlEcho.query, curlEcho.body, curlEcho.headers['x-order']]);
  });

  it("takes a request to the hosted service as one to this engine: its /proxy, its BT- headers and its vault paths", async () => {
    const proxied = await only(
      `curl 'https://api.basistheory.com/proxy/v1/charges?x=1' -H 'BT-API-KEY: key_test_1' -H 'BT-PROXY-URL: https://api.example.com' -H 'BT-TRANSACTION-ID: tx-1' -H 'BT-TRACE-ID: t-1' --json '{"a":1}'`,
    );
    expect(proxied.request).toMatchObject({
      kind: 'proxy',
      method: 'POST',
      target: 'https://api.example.com/v1/charges?x=1',
      service: { transaction: 'tx-1', trace: '' },
      bodyMode: 'json',
      body: '{"a":1}',
    });
    const api = await only(`curl https://api.basistheory.com/tokens/abc -H "BT-API-KEY: $BT_API_KEY"`);
    expect(api.request).toMatchObject({ kind: 'api', method: 'GET', target: '/tokens/abc', headers: [], bodyMode: 'none', body: '' });
  });

  it('sends a call straight to a third party through the proxy, saying so', async () => {
    const direct = await only(`curl -X PUT https://api.example.com/v1/customers/c-1 -H 'Content-Type: application/x-www-form-urlencoded' -d name=Ada -d 'card={{ tok }}'`);
    expect(direct.request).toMatchObject({ kind: 'proxy', method: 'PUT', target: 'https://api.example.com/v1/customers/c-1', bodyMode: 'form', body: 'name=Ada&card={{ tok }}' });
    expect(direct.notes).toContain('It went to api.example.com directly: here it goes there through the proxy.');
  });

  it('says what it could not bring, and refuses what is not a command curl would run', async () => {
    expect((await only(`curl -d @body.json https://api.example.com/a`)).notes.join(' ')).toMatch(/names a file.*paste its content/);
    expect((await only(`curl -X OPTIONS https://api.example.com/a`)).notes).toContain('OPTIONS is not a method the Composer sends: it is GET now.');
    for (const [text, detail] of [
      ['', /Paste a cURL command or a HAR/],
      ['wget https://x.test', /starting with curl/],
      ['curl', /not a cURL command curl would run: no URL/],
      ['curl -F file=@a.png https://x.test/upload', /multipart body/],
      ['{"log": {"entries": [', /looks like JSON but is not/],
      ['{"log": {}}', /not a HAR/],
      ['{"log": {"entries": []}}', /holds no requests/],
      ['{"method": "GET", "url": "/relative"}', /not a URL/],
    ] as const) {
      const problem = await refusal(text);
      expect([problem.status, problem.detail], text).toEqual([400, expect.stringMatching(detail)]);
    }
    // Over HTTP too: the contract's problem, not a 500.
    const answer = await t.workbench('importRequests', { text: 'curl' });
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toMatch(/problem\+json/);
  });
});

describe('importing a HAR', () => {
  it("reads the engine's own HAR export back as the requests History keeps", async () => {
    await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: 'secret' } });
    await t.call('POST', '/proxy/v1/pay', { key: t.privateKey, headers: { 'BT-PROXY-URL': t.engine.echoUrl! }, body: { amount: 1 } });
    await t.engine.history.flush();
    const har = await callMethod(t.engine.workbench, 'exportHar', {});
    const { format, requests } = await importText(JSON.stringify(har));
    expect(format).toBe('har');
    expect(requests.map(({ request }) => [request.kind, request.method, request.target])).toEqual([
      ['api', 'POST', '/tokens'],
      ['proxy', 'POST', `${t.engine.echoUrl}/v1/pay`],
    ]);
    expect(JSON.stringify(requests)).not.toContain('secret');
  });

  it('takes one entry or one request alone, and lists at most 100 of a long HAR', async () => {
    const request = { method: 'GET', url: 'https://api.basistheory.com/tokens?size=5', headers: [{ name: 'BT-API-KEY', value: 'k' }] };
    expect((await only(JSON.stringify({ request }))).request).toMatchObject({ kind: 'api', target: '/tokens?size=5' });
    expect((await only(JSON.stringify(request))).request.target).toBe('/tokens?size=5');
    const long = await importText(JSON.stringify({ log: { entries: Array.from({ length: 150 }, () => ({ request })) } }));
    expect([long.requests.length, long.left_out]).toEqual([100, 50]);
  });
});

describe('credentials in what is imported', () => {
  const listSecrets = () => callMethod(t.engine.workbench, 'listSecrets' as 'listCollections', {}) as unknown as Promise<{ name: string }[]>;
  const reveal = (name: string) => callMethod(t.engine.workbench, 'revealSecret' as 'listCollections', { name } as never) as unknown as Promise<{ value: string }>;

  it('move into Secrets: the request carries references, and the reply names what moved, never a value', async () => {
    const imported = await only(
      `curl https://api.stripe.com/v1/charges -u ada:s3cret-pass -H 'Cookie: session=c0ffee5e55i0n' -H 'X-Api-Key: xk_9f8e7d6c5b4a' -H 'Proxy-Authorization: Basic cHJveHk6cGFzcw==' -H 'X-Order: o-1'`,
    );
    // In curl's order: -H headers, then -u as Authorization and the cookies.
    expect(imported.request.headers).toEqual([
      { name: 'X-Api-Key', value: '${secret:api.stripe.com-x-api-key}', enabled: true },
      { name: 'Proxy-Authorization', value: 'Basic ${secret:api.stripe.com-proxy-authorization}', enabled: true },
      { name: 'X-Order', value: 'o-1', enabled: true },
      { name: 'Authorization', value: 'Basic ${secret:api.stripe.com-authorization}', enabled: true },
      { name: 'Cookie', value: '${secret:api.stripe.com-cookie}', enabled: true },
    ]);
    expect(imported.moved_aside).toEqual([
      { header: 'X-Api-Key', secret: 'api.stripe.com-x-api-key' },
      { header: 'Proxy-Authorization', secret: 'api.stripe.com-proxy-authorization' },
      { header: 'Authorization', secret: 'api.stripe.com-authorization' },
      { header: 'Cookie', secret: 'api.stripe.com-cookie' },
    ]);
    expect(imported.notes).toContain(
      'Moved 4 credentials into Secrets, where the request refers to them by name: X-Api-Key as api.stripe.com-x-api-key, Proxy-Authorization as api.stripe.com-proxy-authorization, Authorization as api.stripe.com-authorization, Cookie as api.stripe.com-cookie.',
    );
    const reply = JSON.stringify(imported);
    for (const value of ['YWRhOnMzY3JldC1wYXNz', 's3cret-pass', 'c0ffee5e55i0n', 'xk_9f8e7d6c5b4a', 'cHJveHk6cGFzcw==']) expect(reply).not.toContain(value);
    expect(await reveal('api.stripe.com-authorization')).toEqual({ value: Buffer.from('ada:s3cret-pass').toString('base64') });
    expect((await listSecrets()).map((s) => s.name)).toHaveLength(4);

    // The same credentials pasted again are the same secrets; curl's -b cookies come in as a Cookie header.
    const again = await only(`curl https://api.stripe.com/v1/refunds -u ada:s3cret-pass -b 'session=c0ffee5e55i0n'`);
    expect(again.request.headers).toEqual([
      { name: 'Authorization', value: 'Basic ${secret:api.stripe.com-authorization}', enabled: true },
      { name: 'Cookie', value: '${secret:api.stripe.com-cookie}', enabled: true },
    ]);
    expect((await listSecrets()).map((s) => s.name)).toHaveLength(4);
  });

  it("leave alone what History's HAR cut to a hint: it holds no credential", async () => {
    const har = { log: { entries: [{ request: { method: 'GET', url: 'https://api.example.com/me', headers: [{ name: 'Authorization', value: '...1a2b' }, { name: 'Cookie', value: '...' }] } }] } };
    const imported = await only(JSON.stringify(har));
    expect(imported.request.headers).toEqual([
      { name: 'Authorization', value: '...1a2b', enabled: true },
      { name: 'Cookie', value: '...', enabled: true },
    ]);
    expect([imported.moved_aside, await listSecrets()]).toEqual([[], []]);
  });

  it('from a HAR, and sends with them as the original did', async () => {
    const har = { log: { entries: [{ request: { method: 'GET', url: `${t.engine.echoUrl}/me`, headers: [{ name: 'Authorization', value: 'Bearer tok_har_abcdef123456' }] } }] } };
    const imported = await only(JSON.stringify(har));
    expect(imported.request.headers).toEqual([{ name: 'Authorization', value: 'Bearer ${secret:127.0.0.1-authorization}', enabled: true }]);
    const sent = await sendAsComposer(imported.request);
    expect(sent.status).toBe(200);
    expect(JSON.parse(sent.body).headers.authorization).toBe('Bearer ${secret:127.0.0.1-authorization}');
  });
});

describe('addresses that are not http or https', () => {
  it('are refused, saying so, rather than made into a target', async () => {
    for (const [text, scheme] of [
      ['curl file:///etc/passwd', 'file'],
      ['curl gopher://gopher.example/1', 'gopher'],
      [JSON.stringify({ method: 'GET', url: 'javascript:alert(1)' }), 'javascript'],
      [JSON.stringify({ method: 'GET', url: 'file:///etc/passwd' }), 'file'],
      [JSON.stringify({ method: 'GET', url: 'data:text/plain,hi' }), 'data'],
    ] as const) {
      const problem = await refusal(text);
      expect([problem.status, problem.detail], text).toEqual([400, `A ${scheme}: address cannot be imported: the Composer sends http and https requests only.`]);
    }
  });
});
