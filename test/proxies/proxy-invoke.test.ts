import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawExchange, startServer, type TestServer } from '../proxy/support/loopback';
import { startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';

/**
 * Invoking a pre-configured proxy (docs/api.md, Invoking a pre-configured proxy): real loopback destinations, a real
 * engine, each step of the pipeline seen from the outside.
 */
const PAN = '4242424242424242';
const OTHER_PAN = '5555555555554444';
let t: TestEngine;
let destination: TestServer;
let useKey: string;
let cardId: string;
/** What the destination last received. */
let received: { method: string; url: string; headers: IncomingMessage['headers']; rawHeaders: string[]; body: string };

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const createProxy = async (body: Record<string, unknown>) => {
  const res = await t.call('POST', '/proxies', { key: t.managementKey, body: { name: 'p', destination_url: destination.url, ...body } });
  if (res.status !== 201) throw new Error(`proxy not created: ${res.text}`);
  return res.body as { id: string; key: string };
};

const invoke = (key: string, path = '/proxy', options: { body?: unknown; headers?: Record<string, string>; apiKey?: string | null; method?: string } = {}) =>
  t.call(options.method ?? (options.body === undefined ? 'GET' : 'POST'), path, {
    key: options.apiKey === undefined ? useKey : options.apiKey,
    body: options.body,
    headers: { 'BT-PROXY-KEY': key, ...options.headers },
  });

function expectProxyError(res: ApiResponse, status: number, detail?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers['bt-proxy-destination-status']).toBeUndefined();
  expect(res.body.proxy_error).toMatchObject({ status });
  if (detail) expect(res.body.proxy_error.detail).toMatch(detail);
}

beforeAll(async () => {
  t = await startTestEngine({ proxyTimeoutMs: 1500 });
  destination = await startServer(async (req, res) => {
    const body = await readBody(req);
    received = { method: req.method!, url: req.url!, headers: req.headers, rawHeaders: req.rawHeaders, body };
    if (req.url!.startsWith('/slow')) {
      setTimeout(() => res.end('late'), 4000);
      return;
    }
    const status = /\/status\/(\d+)/.exec(req.url!)?.[1];
    if (req.url!.startsWith('/card')) {
      res.writeHead(Number(status ?? 200), { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.end(JSON.stringify({ accountNumber: '1234567890', card: PAN, note: 'aabbccaabbccaa', nested: { kept: true } }));
      return;
    }
    res.writeHead(Number(status ?? 200), { 'content-type': 'application/json' });
    res.end(JSON.stringify({ seen: true }));
  });
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name: 'invoker', type: 'private', rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'proxy:invoke'] }] },
  });
  useKey = app.body.key;
  cardId = (await t.call('POST', '/tokens', { key: useKey, body: { type: 'card', data: { number: PAN, expiration_month: 12, expiration_year: 2030 } } })).body.id;
});
afterAll(async () => {
  await destination.close();
  await t.stop();
});

describe('selecting the proxy and its destination', () => {
  it('sends to destination_url + the path after /proxy + the query, without the proxy key, and the header wins over the query', async () => {
    const { key } = await createProxy({ destination_url: `${destination.url}/api/v1/` });
    const res = await invoke(key, `/proxy/charges/42?expand=x&bt-proxy-key=not-this-one&y=2`, { body: { amount: 5 } });
    expect(res.status).toBe(200);
    expect(res.headers['bt-proxy-destination-status']).toBe('200');
    expect(received.url).toBe('/api/v1/charges/42?expand=x&y=2');
    expect(JSON.parse(received.body)).toEqual({ amount: 5 });
    expect(received.headers['bt-proxy-key']).toBeUndefined();
    expect(received.headers['bt-api-key']).toBeUndefined();

    const byQuery = await t.call('GET', `/proxy/?bt-proxy-key=${key}`, { key: useKey });
    expect(byQuery.status).toBe(200);
    expect(received.url).toBe('/api/v1');
  });

  it('answers 400 for an unknown key, and a deleted proxy’s key is unknown at once', async () => {
    expectProxyError(await invoke('nosuchkey'), 400, /Invalid BT-PROXY-KEY/);
    const { id, key } = await createProxy({});
    expect((await invoke(key)).status).toBe(200);
    expect((await t.call('DELETE', `/proxies/${id}`, { key: t.managementKey })).status).toBe(204);
    expectProxyError(await invoke(key), 400, /Invalid BT-PROXY-KEY/);
  });

  it('takes the key as <prefix>-proxy-key in the query under another header prefix', async () => {
    const other = await startTestEngine({ inMemory: true, headerPrefix: 'ACME' });
    try {
      const created = await other.call('POST', '/proxies', { headers: { 'ACME-API-KEY': other.managementKey }, body: { name: 'acme', destination_url: destination.url } });
      const res = await other.call('GET', `/proxy/x?acme-proxy-key=${created.body.key}`, { headers: { 'ACME-API-KEY': other.privateKey } });
      expect(res.status).toBe(200);
      expect(res.headers['acme-proxy-destination-status']).toBe('200');
      expect(received.url).toBe('/x');
    } finally {
      await other.stop();
    }
  });
});

describe('require_auth and permissions', () => {
  it('with require_auth (the default) needs a private key holding proxy:invoke or token:use', async () => {
    const { key } = await createProxy({});
    expectProxyError(await invoke(key, '/proxy', { apiKey: null }), 401);
    expectProxyError(await invoke(key, '/proxy', { apiKey: 'key_unknown_0000000000000000' }), 401);
    const publicApp = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'front', type: 'public', permissions: ['token:create'] } });
    expectProxyError(await invoke(key, '/proxy', { apiKey: publicApp.body.key }), 403);
    const reader = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'reader', type: 'private', permissions: ['token:read'] } });
    expectProxyError(await invoke(key, '/proxy', { apiKey: reader.body.key }), 403);
    expect((await invoke(key, '/proxy', { apiKey: t.privateKey })).status).toBe(200);
  });

  it('without require_auth forwards without a key, but detokenizing still needs one', async () => {
    const { key } = await createProxy({ require_auth: false });
    expect((await invoke(key, '/proxy', { apiKey: null, body: { plain: 1 } })).status).toBe(200);
    expectProxyError(await invoke(key, '/proxy', { apiKey: null, body: { pan: `{{ ${cardId} | json: '$.number' }}` } }), 401, /authentication required to detokenize/);
    expectProxyError(await invoke(key, '/proxy', { apiKey: 'key_unknown_0000000000000000' }), 401);
    const res = await invoke(key, '/proxy', { body: { pan: `{{ ${cardId} | json: '$.number' }}` } });
    expect(res.status).toBe(200);
    expect(JSON.parse(received.body)).toEqual({ pan: PAN });
  });
});

describe('headers', () => {
  it('drops inbound names outside letters, digits, - and _, and never forwards the service’s own headers', async () => {
    const { key } = await createProxy({});
    const request =
      `GET /proxy/h HTTP/1.1\r\nHost: 127.0.0.1:${t.engine.port}\r\nBT-API-KEY: ${useKey}\r\nBT-PROXY-KEY: ${key}\r\n` +
      'X.Dotted: gone\r\nX_Under-Score: kept\r\nBT-PROXY-CONNECTION: close\r\nBT-TRACE-ID: t-1\r\nContent-Length: 0\r\n\r\n';
    const { head } = await rawExchange(t.engine.port, request);
    expect(head).toMatch(/^HTTP\/1.1 200/);
    const names = received.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names).toContain('x_under-score');
    expect(names).not.toContain('x.dotted');
    expect(names.filter((n) => n.startsWith('bt-'))).toEqual([]);
    expect(received.headers.connection).toBe('close');
  });

  it('evaluates header expressions rooted at proxy (an HMAC of the detokenized body), leaves token expressions literal, and history keeps them as sent', async () => {
    const { key } = await createProxy({ configuration: { secret_key: 's3cret' } });
    const body = JSON.stringify({ pan: `{{ ${cardId} | json: '$.number' }}` });
    const res = await t.call('POST', '/proxy', {
      key: useKey,
      raw: body,
      headers: {
        'content-type': 'application/json',
        'BT-PROXY-KEY': key,
        'X-Date': 'Tue, 1 Dec 2026',
        'X-Signature': "{{ proxy.request.body | hmac: 'sha-256', proxy.config.secret_key | to_base16 }}",
        'X-Echo': "date={{ proxy | json: '$.request.headers.X-Date' }}",
        'X-Literal': `{{ ${cardId} | json: '$.number' }}`,
        'BT-TRACE-ID': 'header-expressions',
      },
    });
    expect(res.status).toBe(200);
    expect(received.body).toBe(JSON.stringify({ pan: PAN }));
    expect(received.headers['x-signature']).toBe(createHmac('sha256', 's3cret').update(received.body).digest('hex').toUpperCase());
    expect(received.headers['x-echo']).toBe('date=Tue, 1 Dec 2026');
    expect(received.headers['x-literal']).toBe(`{{ ${cardId} | json: '$.number' }}`);
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(50)).find((e) => e.trace_id === 'header-expressions')!;
    const sent = Object.fromEntries(entry.request_headers);
    expect(sent['X-Signature']).toContain('{{ proxy.request.body');
    const outbound = Object.fromEntries((entry.details as any).outbound.headers);
    expect(outbound['X-Signature']).toContain('{{ proxy.request.body');
  });

  it('evaluates them for the ephemeral proxy too, with an empty proxy.config', async () => {
    const res = await t.call('POST', '/proxy', {
      key: useKey,
      body: { a: 1 },
      headers: { 'BT-PROXY-URL': destination.url, 'X-Length': '{{ proxy.request.body | size }}', 'X-Config': "[{{ proxy.config.missing | default: 'none' }}]" },
    });
    expect(res.status).toBe(200);
    expect(received.headers['x-length']).toBe(String(JSON.stringify({ a: 1 }).length));
    expect(received.headers['x-config']).toBe('[none]');
  });

  it('answers 400 naming the header for a proxy expression that does not parse', async () => {
    const res = await t.call('GET', '/proxy', { key: useKey, headers: { 'BT-PROXY-URL': destination.url, 'X-Bad': '{{ proxy.request.body | nosuchfilter }}' } });
    expectProxyError(res, 400, /X-Bad/);
  });
});

describe('the request pipeline', () => {
  it('runs tokenize transforms first, then detokenizes the body, which may name the token they made', async () => {
    const { key } = await createProxy({
      request_transforms: [{ type: 'tokenize', options: { identifier: 'card', token: { type: 'card_number', data: '{{ req.new_card }}', metadata: { source: 'proxy' } } } }],
    });
    const res = await invoke(key, '/proxy', {
      body: { new_card: OTHER_PAN, made: "{{ tokenize_transform: 'card' | json: '$.id' }}", type: "{{ tokenize_transform: 'card' | json: '$.type' }}", old: `{{ ${cardId} | json: '$.number' }}` },
    });
    expect(res.status).toBe(200);
    const sent = JSON.parse(received.body);
    expect(sent).toMatchObject({ new_card: OTHER_PAN, type: 'card_number', old: PAN });
    const made = await t.call('GET', `/tokens/${sent.made}`, { key: t.privateKey });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ type: 'card_number', metadata: { source: 'proxy' }, created_by: expect.any(String) });
  });

  it('answers a tokenize transform’s validation failure as a 400 proxy_error with the token’s errors, before the destination', async () => {
    const { key } = await createProxy({ request_transforms: [{ type: 'tokenize', options: { identifier: 'c', token: { type: 'card_number', data: '{{ req.n }}' } } }] });
    received = undefined as never;
    const res = await invoke(key, '/proxy', { body: { n: '4242424242424241' } });
    expectProxyError(res, 400);
    expect(Object.keys(res.body.proxy_error.errors)).toEqual(['data']);
    expect(received).toBeUndefined();
  });

  it('leaves expressions as literal text when disable_detokenization is set', async () => {
    const { key } = await createProxy({ disable_detokenization: true });
    const body = { pan: `{{ ${cardId} | json: '$.number' }}` };
    expect((await invoke(key, '/proxy', { body })).status).toBe(200);
    expect(JSON.parse(received.body)).toEqual(body);
  });

  it('answers 408 when the destination is slower than the proxy timeout', async () => {
    const { key } = await createProxy({});
    expectProxyError(await invoke(key, '/proxy/slow'), 408);
  });
});

describe('code transforms', () => {
  const codeProxy = (request: string | null, response: string | null = null) =>
    createProxy({
      configuration: { secret_key: 'k1' },
      ...(request && { request_transforms: [{ code: request }] }),
      ...(response && { response_transforms: [{ code: response }] }),
    });

  it('run after detokenization; their body and headers are what leaves, and header expressions sign that body', async () => {
    const { key } = await codeProxy(
      `module.exports = async (req) => ({ body: { last4: req.args.body.pan.slice(-4), secret: req.configuration.secret_key, path: req.args.path + req.args.query }, headers: { ...req.args.headers, 'X-Code': 'ran' } });`,
    );
    const res = await invoke(key, '/proxy/pay?x=1', {
      body: { pan: `{{ ${cardId} | json: '$.number' }}` },
      headers: { 'X-Sig': "{{ proxy.request.body | hmac: 'sha-256', proxy.config.secret_key | to_base16 }}" },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(received.body)).toEqual({ last4: '4242', secret: 'k1', path: '/pay?x=1' });
    expect(received.headers['x-code']).toBe('ran');
    expect(received.headers['x-sig']).toBe(createHmac('sha256', 'k1').update(received.body).digest('hex').toUpperCase());
  });

  it('change a 2xx answer in a response transform', async () => {
    const { key } = await codeProxy(null, 'module.exports = async (res) => ({ body: { wrapped: res.args.body }, headers: { "X-From": "code" } });');
    const res = await invoke(key);
    expect(res.body).toEqual({ wrapped: { seen: true } });
    expect(res.headers['x-from']).toBe('code');
    expect(res.headers['bt-proxy-destination-status']).toBe('200');
  });

  it('answer a reactor error with its status inside proxy_error, and CustomHttpResponseError as given, without the destination', async () => {
    const errors = "const { BadRequestError, CustomHttpResponseError } = require('@basis-theory/basis-theory-reactor-formulas-sdk-js');";
    const bad = await codeProxy(`${errors} module.exports = async () => { throw new BadRequestError('amount is missing'); };`);
    received = undefined as never;
    const refused = await invoke(bad.key, '/proxy', { body: {} });
    expectProxyError(refused, 400);
    expect(refused.body.proxy_error).toMatchObject({ title: 'One or more validation errors occurred.', detail: 'Bad Request', errors: { error: ['amount is missing'] } });
    expect(received).toBeUndefined();

    const custom = await codeProxy(`${errors} module.exports = async () => { throw new CustomHttpResponseError({ status: 418, headers: { 'X-Tea': 'yes' }, body: { brewed: true } }); };`);
    const answered = await invoke(custom.key, '/proxy', { body: {} });
    expect(answered.status).toBe(418);
    expect(answered.body).toEqual({ brewed: true });
    expect(answered.headers['x-tea']).toBe('yes');
    expect(answered.headers['bt-proxy-destination-status']).toBeUndefined();
    expect(received).toBeUndefined();
  });

  it('answer 500 Reactor Runtime Error for anything else thrown, 422 for code that exports no function, 502 when node22 code throws', async () => {
    const thrown = await codeProxy("module.exports = async () => { throw new Error('boom'); };");
    const runtime = await invoke(thrown.key, '/proxy', { body: {} });
    expectProxyError(runtime, 500, /Reactor Runtime Error/);
    expect(runtime.body.proxy_error.errors.error).toEqual(['boom']);
    expectProxyError(await invoke((await codeProxy('module.exports = 42;')).key, '/proxy', { body: {} }), 422);
    const node22 = await createProxy({ request_transforms: [{ code: "module.exports = async () => { throw new Error('no'); };", options: { runtime: { image: 'node22' } } }] });
    expectProxyError(await invoke(node22.key, '/proxy', { body: {} }), 502);
  });

  it('record the code step with its log lines in the trace, with detokenized values masked', async () => {
    const { key } = await codeProxy("module.exports = async (req) => { console.log('pan is', req.args.body.pan); return { body: req.args.body }; };");
    await invoke(key, '/proxy', { body: { pan: `{{ ${cardId} | json: '$.number' }}` }, headers: { 'BT-TRACE-ID': 'code-trace' } });
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(50)).find((e) => e.trace_id === 'code-trace')!;
    const trace = (entry.details as { trace: { step: string; logs?: string[] }[] }).trace;
    expect(trace.map((s) => s.step)).toEqual(['detokenize', 'code', 'destination']);
    expect(trace[1].logs).toEqual(['log: pan is XXXXXXXXXXXX4242']);
    expect(JSON.stringify(entry)).not.toContain(PAN);
  });

  it('mask in the trace and History every form of a detokenized value the code logs or sends, and any card number', async () => {
    const pan = '4000056655665556';
    const id = (await t.call('POST', '/tokens', { key: useKey, body: { type: 'card', data: { number: pan, expiration_month: 1, expiration_year: 2031 } } })).body.id;
    const { key } = await codeProxy(`module.exports = async (req) => {
      const pan = req.args.body.pan;
      const grouped = (by) => pan.replace(/(\\d{4})(?=\\d)/g, '$1' + by);
      console.log('whole', pan);
      console.log('last four', pan.slice(-4), 'middle', pan.slice(4, 10));
      console.log('spaced', grouped(' '), 'dashed', grouped('-'));
      console.info('another card ${OTHER_PAN}, an order 1234');
      return { body: { pan, last4: pan.slice(-4), spaced: grouped(' ') }, headers: { ...req.args.headers, 'X-Card': pan, 'X-Last4': pan.slice(-4) } };
    };`);
    const res = await invoke(key, '/proxy', { body: { pan: `{{ ${id} | json: '$.number' }}` }, headers: { 'BT-TRACE-ID': 'code-forms' } });
    expect(res.status).toBe(200);
    expect(JSON.parse(received.body)).toEqual({ pan, last4: '5556', spaced: '4000 0566 5566 5556' });
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(50)).find((e) => e.trace_id === 'code-forms')!;
    const details = entry.details as { outbound: { headers: [string, string][]; detokenized_body: string }; trace: { step: string; logs?: string[]; headers?: [string, string][] }[] };
    const code = details.trace.find((s) => s.step === 'code')!;
    expect(code.logs).toEqual([
      'log: whole XXXXXXXXXXXX5556',
      'log: last four XXXX middle XXXXXX',
      'log: spaced XXXX XXXX XXXX 5556 dashed XXXX-XXXX-XXXX-5556',
      'info: another card XXXXXXXXXXXX4444, an order 1234',
    ]);
    expect(code.headers).toContainEqual(['X-Card', 'XXXXXXXXXXXX5556']);
    expect(code.headers).toContainEqual(['X-Last4', 'XXXX']);
    expect(details.outbound.headers).toContainEqual(['X-Card', 'XXXXXXXXXXXX5556']);
    expect(JSON.parse(details.outbound.detokenized_body)).toEqual({ pan: 'XXXXXXXXXXXX5556', last4: 'XXXX', spaced: 'XXXX XXXX XXXX 5556' });
    const shown = JSON.stringify(entry);
    for (const plain of [pan, '4000 0566', '4000-0566', '005665', OTHER_PAN]) expect(shown).not.toContain(plain);
  });
});

describe('response transforms', () => {
  it('run in order on a 2xx answer: mask by expression and by card numbers, append_json, append_text, append_header', async () => {
    const { key } = await createProxy({
      destination_url: `${destination.url}/card`,
      configuration: { region: 'eu' },
      response_transforms: [
        { type: 'mask', matcher: 'regex', expression: '"accountNumber":\\s*"(.*?)"', replacement: '*' },
        { type: 'mask', matcher: 'chase_stratus_pan', replacement: 'X' },
        { type: 'tokenize', options: { identifier: 'acct', token: { type: 'token', data: '{{ res.note }}' } } },
        { type: 'append_json', options: { location: "$.added['deep'].token", value: "{{ transform_identifier: 'acct' | json: '$.id' }}" } },
        { type: 'append_json', options: { location: '$.nested.copy', value: '{{ res.nested }}' } },
        { type: 'append_header', options: { location: 'X-Region', value: '{{ proxy.config.region }}' } },
        { type: 'append_header', options: { location: 'x-upstream', value: 'replaced' } },
      ],
    });
    const res = await invoke(key);
    expect(res.status).toBe(200);
    expect(res.headers['bt-proxy-destination-status']).toBe('200');
    expect(res.body).toMatchObject({ accountNumber: '**********', card: 'X'.repeat(16), note: 'aabbccaabbccaa', nested: { kept: true, copy: { kept: true } } });
    const tokenId = res.body.added.deep.token;
    expect((await t.call('GET', `/tokens/${tokenId}`, { key: t.privateKey })).body.type).toBe('token');
    expect(res.headers['x-region']).toBe('eu');
    expect(res.headers['x-upstream']).toBe('replaced');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
  });

  it('mask a whole body with anchors as the vendor’s example does, and append_text adds to the end', async () => {
    const { key } = await createProxy({
      destination_url: `${destination.url}/card`,
      response_transforms: [
        { type: 'mask', matcher: 'regex', expression: '"note":"(aa).*?"', replacement: '*' },
        { type: 'append_text', options: { value: ' // {{ res.accountNumber | slice: 0, 2 }}' } },
      ],
    });
    const res = await invoke(key);
    expect(res.text).toContain('"note":"**bbcc**bbcc**"');
    expect(res.text.endsWith(' // 12')).toBe(true);
  });

  it('leave a non-2xx answer as the destination sent it', async () => {
    const { key } = await createProxy({
      destination_url: `${destination.url}/card/status/502`,
      response_transforms: [{ type: 'mask', matcher: 'chase_stratus_pan', replacement: '#' }, { type: 'append_text', options: { value: 'x' } }],
    });
    const res = await invoke(key);
    expect(res.status).toBe(502);
    expect(res.headers['bt-proxy-destination-status']).toBe('502');
    expect(res.body.card).toBe(PAN);
  });

  it('answer 500 proxy_error when append_json meets a body that is not a JSON object', async () => {
    const { key } = await createProxy({ response_transforms: [{ type: 'append_json', options: { location: '$.seen.deeper', value: 'v' } }] });
    expectProxyError(await invoke(key), 500, /append_json/);
  });
});

describe('validation of transforms (400 with the field path)', () => {
  const refused = async (body: Record<string, unknown>, field: string) => {
    const res = await t.call('POST', '/proxies', { key: t.managementKey, body: { name: 'bad', destination_url: destination.url, ...body } });
    expect(res.status, res.text).toBe(400);
    expect(Object.keys(res.body.errors)).toContain(field);
  };

  it('refuses each broken transform, naming where it is', async () => {
    await refused({ request_transforms: [{ type: 'mask', matcher: 'chase_stratus_pan', replacement: '*' }] }, 'request_transforms[0].type');
    await refused({ response_transforms: [{ type: 'mask', matcher: 'regex', replacement: '*' }] }, 'response_transforms[0].expression');
    await refused({ response_transforms: [{ type: 'mask', matcher: 'regex', expression: '(a', replacement: '*' }] }, 'response_transforms[0].expression');
    await refused({ response_transforms: [{ type: 'mask', matcher: 'chase_stratus_pan', replacement: '**' }] }, 'response_transforms[0].replacement');
    await refused({ response_transforms: [{ type: 'mask', matcher: 'chase_stratus_pan', expression: '(a)', replacement: '*' }] }, 'response_transforms[0].expression');
    await refused({ response_transforms: [{ type: 'append_json', options: { location: '$..a', value: 'v' } }] }, 'response_transforms[0].options.location');
    await refused({ response_transforms: [{ type: 'append_json', options: { location: '$.a' } }] }, 'response_transforms[0].options.value');
    await refused({ response_transforms: [{ type: 'append_text', options: {} }] }, 'response_transforms[0].options.value');
    await refused({ response_transforms: [{ type: 'append_header', options: { location: 'Bad Name', value: 'v' } }] }, 'response_transforms[0].options.location');
    await refused({ response_transforms: [{ type: 'append_header', options: { location: 'X-A', value: '{{ res | nosuchfilter }}' } }] }, 'response_transforms[0].options.value');
    await refused({ request_transforms: [{ type: 'tokenize', options: {} }] }, 'request_transforms[0].options.token');
    await refused(
      { request_transforms: [{ type: 'tokenize', options: { identifier: 'a', token: { type: 'token', data: 'x' } } }, { type: 'tokenize', options: { identifier: 'a', token: { type: 'token', data: 'y' } } }] },
      'request_transforms[1].options.identifier',
    );
    await refused({ request_transforms: [{ code: 'a' }, { code: 'b' }] }, 'request_transforms[1].type');
    await refused({ request_transforms: [{ code: 'module.exports = async (req) => {' }] }, 'request_transforms[0].code');
    await refused({ request_transforms: [{ code: 'x', options: { runtime: { image: 'node-bt', timeout: 20 } } }] }, 'request_transforms[0].options.runtime.timeout');
    await refused({ request_transforms: [{ type: 'python', code: 'x' }] }, 'request_transforms[0].type');
    await refused({ request_transform: { code: 'x' }, request_transforms: [] }, 'request_transform');
    await refused({ request_reactor_id: 'abc' }, 'request_reactor_id');
    await refused({ configuration: { 'bad-key': 'v' } }, 'configuration.bad-key');
    await refused({ application: { id: '00000000-0000-4000-8000-000000000000' } }, 'application.id');
    await refused({ destination_url: 'ftp://example.com' }, 'destination_url');
  });

  it('answers PATCH 415 without the merge-patch type, 400 for null on a required field, 404 for an id that is no UUID', async () => {
    const { id } = await createProxy({});
    const wrongType = await t.call('PATCH', `/proxies/${id}`, { key: t.managementKey, body: { name: 'x' } });
    expect(wrongType.status).toBe(415);
    const nulled = await t.call('PATCH', `/proxies/${id}`, { key: t.managementKey, raw: '{"name": null}', headers: { 'content-type': 'application/merge-patch+json' } });
    expect(nulled.status).toBe(400);
    expect(Object.keys(nulled.body.errors)).toEqual(['name']);
    expect((await t.call('GET', '/proxies/not-a-uuid', { key: t.managementKey })).status).toBe(404);
  });
});

describe('history', () => {
  it('records each step of a pre-configured call as it happens, with no detokenized value in it', async () => {
    const { key } = await createProxy({
      destination_url: `${destination.url}/card`,
      response_transforms: [{ type: 'append_header', options: { location: 'X-Added', value: 'yes' } }],
    });
    const res = await invoke(key, '/proxy', { body: { pan: `{{ ${cardId} | json: '$.number' }}` }, headers: { 'BT-TRACE-ID': 'traced-call' } });
    expect(res.status).toBe(200);
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(50)).find((e) => e.trace_id === 'traced-call')!;
    const details = entry.details as {
      outbound: { detokenized_body: string };
      trace: { step: string; ms: number; body?: string | null; outbound_body?: true; headers?: [string, string][] }[];
    };
    expect(details.trace.map((s) => s.step)).toEqual(['detokenize', 'destination', 'append_header']);
    for (const step of details.trace) expect(step.ms).toEqual(expect.any(Number));
    expect(details.trace[0]).toMatchObject({ outbound_body: true });
    expect(details.outbound.detokenized_body).toContain('XXXXXXXXXXXX4242');
    expect(details.trace[2].headers).toContainEqual(['X-Added', 'yes']);
    expect(JSON.stringify(entry)).not.toContain(PAN);
    expect(JSON.stringify(entry)).not.toContain(key);
  });

  it('keeps a proxy key given in the query only as a hint, like a credential header', async () => {
    const { key } = await createProxy({});
    expect((await t.call('GET', `/proxy/q?x=1&bt-proxy-key=${key}`, { key: useKey, headers: { 'BT-TRACE-ID': 'key-in-query' } })).status).toBe(200);
    await t.engine.history.flush();
    const entry = (await t.engine.history.list(50)).find((e) => e.trace_id === 'key-in-query')!;
    expect(entry.path).toBe(`/proxy/q?x=1&bt-proxy-key=...${key.slice(-4)}`);
  });
});
