import { readFileSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshProxiesFolder, saveLikeAnEditor } from '../support/proxies-folder';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * Reactors as files (docs/api.md, Reactors as files): `*.reactor.json` in the proxies folder, with their code in a
 * `.js` beside them, watched as proxy files are; seen from a client's side through /reactors.
 */
const SECRET = 'sk_test_reactor_secret_81c2e';

let folder: string;
let dataDir: string;
let t: TestEngine;
let lines: string[];
/** The first start's keys: a restart over the same vault makes none. */
let manager = '';
let invoker = '';

const start = async () => {
  lines = [];
  t = await startTestEngine({ dataDir, proxiesDir: folder, proxyFilesReport: (line) => lines.push(line) });
  if (t.managementKey) manager = t.managementKey;
  if (t.privateKey) invoker = t.privateKey;
};
freshProxiesFolder(
  (dirs) => ({ folder, dataDir } = dirs),
  () => t.stop(),
);

const save = (name: string, content: unknown) => saveLikeAnEditor(folder, name, content);

const card = (extra: Record<string, unknown> = {}) => ({ name: 'Card', code_file: 'card.reactor.js', ...extra });
const marking = (mark: string) => `module.exports = async (req) => ({ raw: { mark: '${mark}', last4: String(req.args.number).slice(-4) } });\n`;

const files = async () => (await t.engine.workbench.listProxyFiles({})).files;
const fileNamed = async (path: string) => (await files()).find((file) => file.path === path);
const reactorIdOf = async (path: string) => {
  const file = await fileNamed(path);
  if (file?.kind !== 'reactor' || !file.served) throw new Error(`no reactor is served from ${path}`);
  return file.served.id;
};
const react = (id: string) => t.call('POST', `/reactors/${id}/react`, { key: invoker, body: { args: { number: '4242424242424242' } } });
const markOf = async (id: string) => {
  const res = await react(id);
  return res.status === 200 ? (res.body.raw as { mark: string }).mark : `status ${res.status}: ${res.text}`;
};

describe('a reactor served from a file', () => {
  it('reacts as its JSON and the .js beside it say, listed by GET /reactors like any other', async () => {
    save('card.reactor.js', marking('one'));
    save('card.reactor.json', card());
    await start();
    const id = await reactorIdOf('card.reactor.json');
    const res = await react(id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.raw).toEqual({ mark: 'one', last4: '4242' });
    const got = await t.call('GET', `/reactors/${id}`, { key: manager });
    expect(got.body).toMatchObject({ id, name: 'Card', code: marking('one'), state: 'active' });
    expect((await t.call('GET', '/reactors', { key: manager })).body.data.map((r: { id: string }) => r.id)).toContain(id);
    expect(lines.some((line) => line.includes('card.reactor.json') && line.includes('loaded reactor'))).toBe(true);
    // A reactor file is no proxy file.
    expect(await fileNamed('card.reactor.json')).toMatchObject({ kind: 'reactor', state: 'loaded' });
    expect((await t.call('GET', '/proxies', { key: manager })).body.data).toEqual([]);
  });

  it('applies a saved change of the .js, and of the JSON, to the next react without a restart', async () => {
    save('card.reactor.js', marking('one'));
    save('card.reactor.json', card());
    await start();
    const id = await reactorIdOf('card.reactor.json');
    expect(await markOf(id)).toBe('one');

    save('card.reactor.js', marking('two'));
    await expect.poll(() => markOf(id), { timeout: 5000, interval: 25 }).toBe('two');

    save('card.reactor.json', card({ name: 'Card v2' }));
    await expect.poll(async () => (await t.call('GET', `/reactors/${id}`, { key: manager })).body.name, { timeout: 5000, interval: 25 }).toBe('Card v2');
    expect(await reactorIdOf('card.reactor.json')).toBe(id);
  });

  it('keeps the last good version reacting when the file breaks, and says why (stdout and the workbench)', async () => {
    save('card.reactor.js', marking('good'));
    save('card.reactor.json', card());
    await start();
    const id = await reactorIdOf('card.reactor.json');

    save('card.reactor.json', '{ "name": "Card", ');
    await expect.poll(async () => (await fileNamed('card.reactor.json'))?.state, { timeout: 5000, interval: 25 }).toBe('error');
    expect(await fileNamed('card.reactor.json')).toMatchObject({ kind: 'reactor', state: 'error', served: { id, name: 'Card' }, problems: [expect.stringMatching(/not valid JSON/)] });
    expect(lines.filter((line) => line.includes('card.reactor.json') && line.includes('not valid JSON'))).toEqual([expect.stringContaining('the last good version keeps serving')]);
    expect(await markOf(id)).toBe('good');

    // Fields are checked as POST /reactors checks them, each named by its path.
    save('card.reactor.json', card({ id: 'mine', key: 'k' }));
    await expect.poll(async () => (await fileNamed('card.reactor.json'))?.problems, { timeout: 5000, interval: 25 }).toEqual([
      "id: the engine keeps a file reactor's id (stable across reloads): leave it out of the file",
      'key: not a field of a reactor (those of POST /reactors)',
    ]);
    save('card.reactor.json', card({ name: '', runtime: { image: 'node22', timeout: 5000 } }));
    await expect.poll(async () => (await fileNamed('card.reactor.json'))?.problems.join('\n'), { timeout: 5000, interval: 25 }).toMatch(/^name: name is required$/m);
    expect((await fileNamed('card.reactor.json'))!.problems.join('\n')).toMatch(/^runtime\.timeout: /m);
    expect(await markOf(id)).toBe('good');

    // A code file that is not there is named by its field.
    save('card.reactor.json', card({ code_file: 'nowhere.js' }));
    await expect.poll(async () => (await fileNamed('card.reactor.json'))?.problems, { timeout: 5000, interval: 25 }).toEqual(['code_file: nowhere.js does not exist']);
    expect(await markOf(id)).toBe('good');

    // A new file broken from the start serves nothing.
    save('other.reactor.json', { name: 'Other' });
    await expect.poll(async () => (await fileNamed('other.reactor.json'))?.problems, { timeout: 5000, interval: 25 }).toEqual(['code: code is required']);
    expect(await fileNamed('other.reactor.json')).toMatchObject({ state: 'error', served: null });
  });

  it('answers 409 to PUT, PATCH and DELETE of a file reactor, naming the file to edit', async () => {
    save('card.reactor.js', marking('one'));
    save('card.reactor.json', card());
    await start();
    const id = await reactorIdOf('card.reactor.json');
    const writes = [
      t.call('PUT', `/reactors/${id}`, { key: manager, body: { name: 'Changed', code: marking('api') } }),
      t.call('PATCH', `/reactors/${id}`, { key: manager, body: { name: 'Changed' }, headers: { 'content-type': 'application/merge-patch+json' } }),
      t.call('DELETE', `/reactors/${id}`, { key: manager }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.status, res.text).toBe(409);
      expect(res.body.detail).toMatch(/card\.reactor\.json/);
    }
    expect(await markOf(id)).toBe('one');
  });

  it('keeps its id across an engine restart and a rename with the same content (git mv)', async () => {
    save('card.reactor.js', marking('one'));
    save('card.reactor.json', card());
    await start();
    const id = await reactorIdOf('card.reactor.json');
    await t.stop();
    await start();
    expect(await reactorIdOf('card.reactor.json')).toBe(id);
    expect(await markOf(id)).toBe('one');

    renameSync(join(folder, 'card.reactor.json'), join(folder, 'payment.reactor.json'));
    await expect.poll(async () => (await fileNamed('payment.reactor.json'))?.served?.id, { timeout: 5000, interval: 25 }).toBe(id);
    expect(await markOf(id)).toBe('one');
  });
});

describe('secrets in a reactor file', () => {
  it('puts ${secret:NAME} in at each react, never showing or keeping the value', async () => {
    save('sign.js', "module.exports = async (req) => { console.log('signing with', req.configuration.API_KEY); return { raw: { signed: req.configuration.API_KEY.length } }; };\n");
    save('sign.reactor.json', { name: 'Sign', code_file: 'sign.js', configuration: { API_KEY: '${secret:psp-key}' } });
    await start();
    const id = await reactorIdOf('sign.reactor.json');
    expect((await fileNamed('sign.reactor.json'))!.warnings.join()).toMatch(/psp-key.*Secrets does not hold/);
    const missing = await react(id);
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toMatch(/configuration\.API_KEY of sign\.reactor\.json refers to the secret “psp-key”/);

    await t.engine.workbench.setSecret({ name: 'psp-key', value: SECRET });
    const res = await react(id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.raw).toEqual({ signed: SECRET.length });
    for (const name of readdirSync(folder)) expect(readFileSync(join(folder, name), 'utf8')).not.toContain(SECRET);
    expect((await t.call('GET', `/reactors/${id}`, { key: manager })).body.configuration).toEqual({ API_KEY: '${secret:psp-key}' });
    await t.engine.history.flush();
    const entries = JSON.stringify(await t.engine.history.list(50));
    expect(entries).not.toContain(SECRET);
    expect(entries).toContain('signing with ${secret:psp-key}');
  });
});

describe('export and import', () => {
  const keyed = "module.exports = async (req) => ({ raw: { mark: 'exported', key: req.configuration.API_KEY, region: req.configuration.region } });";

  it('exports a reactor made through the API to files: secrets into Secrets, the same id, a file reactor from then on (and after a restart)', async () => {
    await start();
    const made = await t.call('POST', '/reactors', { key: manager, body: { name: 'API card', code: keyed, configuration: { API_KEY: SECRET, region: 'eu' } } });
    expect(made.status).toBe(201);
    const exported = await t.engine.workbench.exportReactorToFiles({ id: made.body.id, secret_keys: [] });
    expect(exported).toMatchObject({
      path: 'api-card.reactor.json',
      files: ['api-card.reactor.js', 'api-card.reactor.json'],
      id: made.body.id,
      kept_identity: true,
      moved: [{ key: 'API_KEY', secret: expect.any(String) }],
    });
    expect(JSON.parse(readFileSync(join(folder, 'api-card.reactor.json'), 'utf8'))).toEqual({
      name: 'API card',
      code_file: 'api-card.reactor.js',
      configuration: { API_KEY: `\${secret:${exported.moved[0].secret}}`, region: 'eu' },
    });
    expect(readFileSync(join(folder, 'api-card.reactor.js'), 'utf8')).toBe(`${keyed}\n`);
    for (const name of readdirSync(folder)) expect(readFileSync(join(folder, name), 'utf8')).not.toContain(SECRET);

    const check = async () => {
      expect(await reactorIdOf('api-card.reactor.json')).toBe(made.body.id);
      const res = await react(made.body.id);
      expect(res.status, res.text).toBe(200);
      expect(res.body.raw).toEqual({ mark: 'exported', key: SECRET, region: 'eu' });
      expect((await t.call('DELETE', `/reactors/${made.body.id}`, { key: manager })).status).toBe(409);
    };
    await check();
    await t.stop();
    await start();
    await check();
  });

  it("imports the hosted service's reactor JSON, keeping its id when it is free here", async () => {
    await start();
    // The JSON as the service answers GET /reactors/{id}: another engine plays the hosted service.
    const service = await startTestEngine({ inMemory: true });
    const created = await service.call('POST', '/reactors', { key: service.managementKey, body: { name: 'Hosted card', code: marking('hosted'), configuration: { client_secret: SECRET } } });
    expect(created.status).toBe(201);
    const hosted = (await service.call('GET', `/reactors/${created.body.id}`, { key: service.managementKey })).body;
    await service.stop();
    expect(hosted).toMatchObject({ tenant_id: expect.any(String), state: 'active', formula: null });
    const imported = await t.engine.workbench.importReactorToFiles({ json: JSON.stringify(hosted), secret_keys: [] });
    expect(imported).toMatchObject({ path: 'hosted-card.reactor.json', id: hosted.id, kept_identity: true, moved: [{ key: 'client_secret' }] });
    expect(await markOf(hosted.id)).toBe('hosted');
    for (const name of readdirSync(folder)) expect(readFileSync(join(folder, name), 'utf8')).not.toContain(SECRET);

    // The same reactor again: its id is taken here now, so it gets its own.
    const again = await t.engine.workbench.importReactorToFiles({ json: JSON.stringify(hosted), file: 'hosted-copy', secret_keys: [] });
    expect(again).toMatchObject({ path: 'hosted-copy.reactor.json', kept_identity: false });
    expect(again.id).not.toBe(hosted.id);
    expect(await markOf(again.id)).toBe('hosted');
  });
});
