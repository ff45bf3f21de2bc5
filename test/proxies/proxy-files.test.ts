import { readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../proxy/support/loopback';
import { freshProxiesFolder, saveLikeAnEditor } from '../support/proxies-folder';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/**
 * Proxies as files (docs/api.md, Proxies as files): a real folder, a real engine watching it, real loopback
 * destinations. Each change is made as an editor or git makes it, and seen from a client's side.
 */
const SECRET = 'sk_test_file_secret_4f7a9c';

let destination: TestServer;
/** What the destination last received. */
let received: { url: string; headers: IncomingMessage['headers']; body: string };
let folder: string;
let dataDir: string;
let t: TestEngine;
let lines: string[];

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  destination = await startServer(async (req, res) => {
    received = { url: req.url!, headers: req.headers, body: await readBody(req) };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true }));
  });
});
afterAll(() => destination.close());

/** The first start's management key: a restart over the same vault makes none. */
let manager = '';
const start = async (options: Parameters<typeof startTestEngine>[0] = {}) => {
  lines = [];
  t = await startTestEngine({ dataDir, proxiesDir: folder, proxyFilesReport: (line) => lines.push(line), ...options });
  if (t.managementKey) manager = t.managementKey;
};
freshProxiesFolder(
  (dirs) => ({ folder, dataDir } = dirs),
  () => t.stop(),
);

const save = (name: string, content: unknown) => saveLikeAnEditor(folder, name, content);

const charge = (extra: Record<string, unknown> = {}) => ({
  name: 'Charge',
  destination_url: `${destination.url}/v1`,
  require_auth: false,
  request_transforms: [{ type: 'code', code_file: 'charge.request.js' }],
  ...extra,
});
const stamping = (mark: string) => `module.exports = async (req) => ({ body: { ...req.args.body, mark: '${mark}' }, headers: req.args.headers });\n`;

const files = async () => (await t.engine.workbench.listProxyFiles({})).files;
const fileNamed = async (path: string) => (await files()).find((file) => file.path === path);
const proxyOf = async (path: string) => {
  const file = await fileNamed(path);
  if (!file?.served) throw new Error(`no proxy is served from ${path}`);
  return (await t.call('GET', `/proxies/${file.served.id}`, { key: manager })).body as { id: string; key: string; name: string; configuration: Record<string, string> };
};
const invoke = (key: string, body: unknown = { amount: 5 }, path = '/proxy/charges') => t.call('POST', path, { body, headers: { 'BT-PROXY-KEY': key } });
/** The mark the destination received once a request went through the proxy of `key`. */
const markSent = async (key: string) => {
  const res = await invoke(key);
  return res.status === 200 ? (JSON.parse(received.body) as { mark?: string }).mark : `status ${res.status}`;
};

describe('a proxy served from a file', () => {
  it('answers at its key as the JSON and its .js file say, listed by GET like any other proxy', async () => {
    save('charge.request.js', stamping('one'));
    save('charge.json', charge());
    await start();
    const proxy = await proxyOf('charge.json');
    expect(proxy).toMatchObject({ name: 'Charge', require_auth: false });
    const res = await invoke(proxy.key);
    expect(res.status).toBe(200);
    expect(received.url).toBe('/v1/charges');
    expect(JSON.parse(received.body)).toEqual({ amount: 5, mark: 'one' });
    const listed = await t.call('GET', '/proxies', { key: manager });
    expect(listed.body.data.map((p: { id: string }) => p.id)).toContain(proxy.id);
    expect(lines.some((line) => line.includes('charge.json') && line.includes('loaded'))).toBe(true);
  });

  it('applies a saved change of the JSON, and of the .js beside it, to the next request without a restart', async () => {
    save('charge.request.js', stamping('one'));
    save('charge.json', charge());
    await start();
    const { key, id } = await proxyOf('charge.json');
    expect(await markSent(key)).toBe('one');

    save('charge.request.js', stamping('two'));
    await expect.poll(() => markSent(key), { timeout: 5000, interval: 25 }).toBe('two');

    save('charge.json', charge({ destination_url: `${destination.url}/v2` }));
    await expect.poll(async () => (await invoke(key), received.url), { timeout: 5000, interval: 25 }).toBe('/v2/charges');
    // The same proxy throughout: its id and key stay.
    expect((await proxyOf('charge.json')).id).toBe(id);
  });

  it('keeps the last good version serving when the file breaks, and says why (stdout and the workbench)', async () => {
    save('charge.request.js', stamping('good'));
    save('charge.json', charge());
    await start();
    const { key, id } = await proxyOf('charge.json');

    save('charge.json', '{ "name": "Charge", ');
    await expect.poll(async () => (await fileNamed('charge.json'))?.state, { timeout: 5000, interval: 25 }).toBe('error');
    const broken = await fileNamed('charge.json');
    expect(broken).toMatchObject({ state: 'error', served: { id, name: 'Charge' } });
    expect(broken!.problems[0]).toMatch(/not valid JSON/);
    expect(lines.filter((line) => line.includes('charge.json') && line.includes('not valid JSON'))).toEqual([expect.stringContaining('the last good version keeps serving')]);
    expect(await markSent(key)).toBe('good');

    // A code file that does not compile is named, by its file.
    save('charge.json', charge());
    save('charge.request.js', 'module.exports = async (req) => {');
    await expect.poll(async () => (await fileNamed('charge.json'))?.problems.join(), { timeout: 5000, interval: 25 }).toMatch(/request_transforms\[0\]\.code_file: charge\.request\.js: code does not compile/);
    expect(await markSent(key)).toBe('good');

    // Invalid fields are named by their path, as the API names them.
    save('charge.request.js', stamping('good'));
    save('charge.json', charge({ destination_url: 'ftp://nowhere', configuration: { 'bad key': 'x' } }));
    await expect.poll(async () => (await fileNamed('charge.json'))?.problems.join('\n'), { timeout: 5000, interval: 25 }).toMatch(/^destination_url: /m);
    expect((await fileNamed('charge.json'))!.problems.join('\n')).toMatch(/configuration\.bad key|configuration\['bad key'\]/);
  });

  it('serves nothing from a file broken from the start, and lists it with its error: a missing or escaping code file', async () => {
    save('missing.json', charge({ name: 'Missing', request_transforms: [{ type: 'code', code_file: 'nowhere.js' }] }));
    save('escape.json', charge({ name: 'Escape', request_transforms: [{ code_file: '../outside.js' }] }));
    save('both.json', charge({ name: 'Both', request_transforms: [{ code: 'module.exports = async (r) => r.args', code_file: 'x.js' }] }));
    await start();
    expect(await fileNamed('missing.json')).toMatchObject({ state: 'error', served: null, problems: ['request_transforms[0].code_file: nowhere.js does not exist'] });
    expect((await fileNamed('escape.json'))!.problems).toEqual([expect.stringMatching(/^request_transforms\[0\]\.code_file: \.\.\/outside\.js is outside the proxies folder/)]);
    expect((await fileNamed('both.json'))!.problems.join()).toMatch(/give code or code_file, not both/);
    expect((await t.call('GET', '/proxies', { key: manager })).body.data).toEqual([]);
    expect(lines.filter((line) => line.includes('missing.json'))).toEqual([expect.stringContaining('nothing is served from it')]);
  });

  it("is a problem of its file when its node22 code declares dependencies the dependencies folder lacks: the last good version keeps serving", async () => {
    const dependencies = tempDir('tokenbench-deps-');
    try {
      save('charge.request.js', stamping('good'));
      save('charge.json', charge());
      await start({ codeDependenciesDir: dependencies });
      const { key, id } = await proxyOf('charge.json');

      const node22 = { type: 'code', code_file: 'charge.request.js', options: { runtime: { image: 'node22', dependencies: { 'tiny-pad': '1.0.0' } } } };
      save('charge.json', charge({ request_transforms: [node22] }));
      await expect.poll(async () => (await fileNamed('charge.json'))?.state, { timeout: 5000, interval: 25 }).toBe('error');
      const lacking = await fileNamed('charge.json');
      expect(lacking).toMatchObject({ served: { id } });
      expect(lacking!.problems.join('\n')).toMatch(/^request_transforms\[0\]\.options\.runtime\.dependencies: .*tiny-pad@1\.0\.0/m);
      expect(lines.some((line) => line.includes('charge.json') && line.includes('tiny-pad@1.0.0') && line.includes('the last good version keeps serving'))).toBe(true);
      expect(await markSent(key)).toBe('good');

      // A file that lacks them from the start serves nothing.
      save('refund.request.js', stamping('refund'));
      save('refund.json', { ...charge({ request_transforms: [{ ...node22, code_file: 'refund.request.js' }] }), name: 'Refund' });
      await expect.poll(async () => (await fileNamed('refund.json'))?.state, { timeout: 5000, interval: 25 }).toBe('error');
      expect(await fileNamed('refund.json')).toMatchObject({ served: null });
    } finally {
      rmSync(dependencies, { recursive: true, force: true });
    }
  });

  it('stops answering at the key of a file removed', async () => {
    save('charge.request.js', stamping('one'));
    save('charge.json', charge());
    await start();
    const { key, id } = await proxyOf('charge.json');
    rmSync(join(folder, 'charge.json'));
    await expect.poll(async () => (await invoke(key)).status, { timeout: 5000, interval: 25 }).toBe(400);
    expect((await t.call('GET', `/proxies/${id}`, { key: manager })).status).toBe(404);
    expect(await files()).toEqual([]);
  });

  it('keeps id and key across reloads, an engine restart, and a file that goes and comes back; a rename with the same content keeps them too', async () => {
    save('charge.request.js', stamping('one'));
    save('charge.json', charge());
    await start();
    const first = await proxyOf('charge.json');
    await t.stop();
    await start();
    const again = await proxyOf('charge.json');
    expect([again.id, again.key]).toEqual([first.id, first.key]);
    expect(await markSent(first.key)).toBe('one');

    renameSync(join(folder, 'charge.json'), join(folder, 'payment.json'));
    await expect.poll(async () => (await fileNamed('payment.json'))?.served?.id, { timeout: 5000, interval: 25 }).toBe(first.id);
    expect(await markSent(first.key)).toBe('one');
  });

  it('answers 409 to PUT, PATCH and DELETE of a file proxy, naming the file to edit', async () => {
    save('charge.request.js', stamping('one'));
    save('charge.json', charge());
    await start();
    const { id, key } = await proxyOf('charge.json');
    const body = { name: 'Changed', destination_url: destination.url };
    const put = await t.call('PUT', `/proxies/${id}`, { key: manager, body });
    const patch = await t.call('PATCH', `/proxies/${id}`, { key: manager, body: { name: 'Changed' }, headers: { 'content-type': 'application/merge-patch+json' } });
    const del = await t.call('DELETE', `/proxies/${id}`, { key: manager });
    for (const res of [put, patch, del]) {
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/loaded from the file charge\.json .*edit the file/);
    }
    expect((await proxyOf('charge.json')).name).toBe('Charge');
    expect(await markSent(key)).toBe('one');
  });
});

describe('secrets in a proxy file', () => {
  // The code logs the secret and sends it in the body too: both reach the trace, which must keep only the reference.
  const signing =
    "module.exports = async (req) => { console.log('signing with', req.configuration.API_KEY); return { body: { signed: req.configuration.API_KEY }, headers: { ...req.args.headers, 'x-signed-with': req.configuration.API_KEY, 'x-merchant': req.configuration.MERCHANT } }; };\n";

  it('puts ${secret:NAME} in at each call, shows and keeps only the reference, and answers a clear error while the secret is missing', async () => {
    save('sign.request.js', signing);
    save('sign.json', charge({ name: 'Sign', configuration: { API_KEY: '${secret:psp-key}', MERCHANT: 'acme' }, request_transforms: [{ type: 'code', code_file: 'sign.request.js' }] }));
    await start();
    const proxy = await proxyOf('sign.json');
    expect(proxy.configuration).toEqual({ API_KEY: '${secret:psp-key}', MERCHANT: 'acme' });
    expect((await fileNamed('sign.json'))!.warnings.join()).toMatch(/psp-key.*Secrets does not hold/);

    const missing = await invoke(proxy.key);
    expect(missing.status).toBe(422);
    expect(missing.body.proxy_error.detail).toMatch(/configuration\.API_KEY of sign\.json refers to the secret “psp-key”, which Secrets does not hold/);

    await t.engine.workbench.setSecret({ name: 'psp-key', value: SECRET });
    expect((await invoke(proxy.key)).status).toBe(200);
    expect(received.headers['x-signed-with']).toBe(SECRET);
    expect(received.headers['x-merchant']).toBe('acme');
    // Never written: not in the folder, not in what the API answers, not in history.
    for (const name of readdirSync(folder)) expect(readFileSync(join(folder, name), 'utf8')).not.toContain(SECRET);
    expect(JSON.stringify((await t.call('GET', '/proxies', { key: manager })).body)).not.toContain(SECRET);
    await t.engine.history.flush();
    expect(JSON.stringify(await t.engine.workbench.listHistory({ limit: 50 }))).not.toContain(SECRET);
    const entries = JSON.stringify(await t.engine.history.list(50));
    expect(entries).not.toContain(SECRET);
    expect(entries).toContain('signing with ${secret:psp-key}');
  });

  it('flags a value that looks like a credential kept in plain text, and refuses ${env:…}', async () => {
    save('plain.json', charge({ name: 'Plain', request_transforms: [], configuration: { api_key: 'sk_live_plain', MERCHANT: 'acme' } }));
    save('env.json', charge({ name: 'Env', request_transforms: [], configuration: { HOST: '${env:host}' } }));
    await start();
    expect(await fileNamed('plain.json')).toMatchObject({ state: 'loaded', warnings: [expect.stringMatching(/configuration\.api_key looks like a credential kept in the file in plain text/)] });
    expect(lines.some((line) => line.includes('plain.json: warning: configuration.api_key'))).toBe(true);
    expect(await fileNamed('env.json')).toMatchObject({ state: 'error', problems: [expect.stringMatching(/^configuration\.HOST: only \$\{secret:NAME\} references/)] });
  });
});

describe('export and import', () => {
  it('exports a proxy made through the API to files: secrets into Secrets, the same id and key, a file proxy from then on (and after a restart)', async () => {
    await start();
    const code = "module.exports = async (req) => ({ body: { ...req.args.body, via: 'export', key: req.configuration.API_KEY }, headers: req.args.headers });";
    const made = await t.call('POST', '/proxies', {
      key: manager,
      body: { name: 'Charge a card', destination_url: `${destination.url}/v1`, require_auth: false, configuration: { API_KEY: SECRET, MERCHANT: 'acme' }, request_transforms: [{ type: 'code', code }] },
    });
    expect(made.status).toBe(201);
    const exported = await t.engine.workbench.exportProxyToFiles({ id: made.body.id, secret_keys: [] });
    expect(exported).toMatchObject({ path: 'charge-a-card.json', files: ['charge-a-card.request.js', 'charge-a-card.json'], id: made.body.id, kept_identity: true, moved: [{ key: 'API_KEY', secret: expect.any(String) }] });
    const json = JSON.parse(readFileSync(join(folder, 'charge-a-card.json'), 'utf8'));
    expect(json).toMatchObject({ configuration: { API_KEY: `\${secret:${exported.moved[0].secret}}`, MERCHANT: 'acme' }, request_transforms: [{ type: 'code', code_file: 'charge-a-card.request.js' }] });
    expect(readFileSync(join(folder, 'charge-a-card.request.js'), 'utf8')).toBe(`${code}\n`);
    for (const name of readdirSync(folder)) expect(readFileSync(join(folder, name), 'utf8')).not.toContain(SECRET);

    const check = async () => {
      const proxy = await proxyOf('charge-a-card.json');
      expect([proxy.id, proxy.key]).toEqual([made.body.id, made.body.key]);
      expect((await invoke(made.body.key)).status).toBe(200);
      expect(JSON.parse(received.body)).toEqual({ amount: 5, via: 'export', key: SECRET });
      expect((await t.call('DELETE', `/proxies/${made.body.id}`, { key: manager })).status).toBe(409);
    };
    await check();
    await t.stop();
    await start();
    await check();
  });

  it("imports the hosted service's proxy JSON, keeping its id and key when they are free here", async () => {
    await start();
    // The JSON as the service answers GET /proxies/{id}: another engine plays the hosted service.
    const service = await startTestEngine({ inMemory: true });
    const created = await service.call('POST', '/proxies', {
      key: service.managementKey,
      body: {
        name: 'Hosted charge',
        destination_url: `${destination.url}/hosted`,
        request_transform: { type: 'code', code: "module.exports = async (req) => ({ body: { ...req.args.body, from: 'hosted' }, headers: req.args.headers });" },
        configuration: { client_secret: SECRET },
        require_auth: false,
      },
    });
    const hosted = (await service.call('GET', `/proxies/${created.body.id}`, { key: service.managementKey })).body;
    await service.stop();
    expect(hosted).toMatchObject({ request_transforms: [expect.anything()], request_transform: expect.anything(), tenant_id: expect.any(String) });
    const imported = await t.engine.workbench.importProxyToFiles({ json: JSON.stringify(hosted), secret_keys: [] });
    expect(imported).toMatchObject({ path: 'hosted-charge.json', id: hosted.id, kept_identity: true });
    const proxy = await proxyOf('hosted-charge.json');
    expect([proxy.id, proxy.key]).toEqual([hosted.id, hosted.key]);
    expect((await invoke(hosted.key)).status).toBe(200);
    expect(JSON.parse(received.body)).toEqual({ amount: 5, from: 'hosted' });
    for (const name of readdirSync(folder)) expect(readFileSync(join(folder, name), 'utf8')).not.toContain(SECRET);

    // The same proxy again: its id and key are taken here now, so it gets its own.
    const again = await t.engine.workbench.importProxyToFiles({ json: JSON.stringify(hosted), file: 'hosted-copy', secret_keys: [] });
    expect(again.kept_identity).toBe(false);
    expect(again.id).not.toBe(hosted.id);
  });
});
