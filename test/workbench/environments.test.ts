import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, readAll, type TestServer } from '../proxy/support/loopback';
import { workbenchReply } from './support/workbench-engine';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/**
 * Environments: named sets of variables, files beside the collections, that requests refer to as `${env:NAME}`. A
 * secret variable's value lives in Secrets, never in the folder; the engine puts every value in as the request leaves,
 * before the proxy reads the body's expressions, and history keeps the references as written.
 */

const SECRET = 'sk_live_51HqEnvSecretValue0042';
const PAN = '4242424242424242';

let t: TestEngine;
/** What the destination received: method, path, headers and body of each request. */
let received: { path: string; headers: Record<string, string | string[] | undefined>; body: string }[];
let destination: TestServer;

beforeEach(async () => {
  t = await startTestEngine({ workbenchRoutes: true });
  received = [];
  destination = await startServer(async (req, res) => {
    received.push({ path: req.url ?? '', headers: req.headers, body: (await readAll(req)).toString('utf8') });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok": true}');
  });
});
afterEach(async () => {
  await t.stop();
  await destination.close();
});

const call = (name: string, request: unknown = {}) => workbenchReply(t, name, request);

const environmentFile = (name: string) => join(t.engine.collectionsFolder, 'environments', `${name}.env.json`);

async function cardToken(): Promise<string> {
  const created = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card', data: { number: PAN, expiration_month: 12, expiration_year: 2030 } } });
  return created.body.id;
}

describe('an environment', () => {
  it('is a file beside the collections, a variable a line, its secret values in Secrets only', async () => {
    const saved = await call('saveEnvironment', {
      name: 'staging',
      variables: [
        { name: 'base_url', value: 'https://staging.example.com' },
        { name: 'api_key', value: SECRET, secret: true },
        { name: 'amount', value: '1200' },
      ],
    });
    expect(readFileSync(environmentFile('staging'), 'utf8')).toBe(
      ['{', '  "version": 1,', '  "variables": {', '    "amount": "1200",', '    "api_key": "${secret:staging-api_key}",', '    "base_url": "https://staging.example.com"', '  }', '}', ''].join('\n'),
    );
    expect(saved.environments).toEqual([
      {
        name: 'staging',
        problem: null,
        variables: [
          { name: 'amount', value: '1200', secret: null, secret_set: true },
          { name: 'api_key', value: null, secret: 'staging-api_key', secret_set: true },
          { name: 'base_url', value: 'https://staging.example.com', secret: null, secret_set: true },
        ],
      },
    ]);
    expect(await call('revealSecret', { name: 'staging-api_key' })).toEqual({ value: SECRET });

    // Saved again without the secret's value, which the page never holds: it keeps the one in Secrets; one line changes.
    await call('saveEnvironment', {
      name: 'staging',
      from: 'staging',
      variables: [
        { name: 'base_url', value: 'https://staging.example.com' },
        { name: 'api_key', secret: true },
        { name: 'amount', value: '1300' },
      ],
    });
    const lines = readFileSync(environmentFile('staging'), 'utf8').split('\n');
    expect(lines[3]).toBe('    "amount": "1300",');
    expect(lines[4]).toBe('    "api_key": "${secret:staging-api_key}",');
    expect(await call('revealSecret', { name: 'staging-api_key' })).toEqual({ value: SECRET });

    // Renamed, the choice of it follows; deleted, the choice goes; the secret stays in Secrets.
    await call('setActiveEnvironment', { name: 'staging' });
    const renamed = await call('saveEnvironment', { name: 'stage', from: 'staging', variables: [{ name: 'api_key', secret: true }] });
    expect(renamed).toMatchObject({ active: 'stage', environments: [{ name: 'stage' }] });
    const deleted = await call('deleteEnvironment', { name: 'stage' });
    expect(deleted).toMatchObject({ active: null, environments: [] });
    expect((await call('listSecrets')).map((s: { name: string }) => s.name)).toEqual(['staging-api_key']);

    // History names each change, never a value.
    await t.engine.history.flush();
    const changes = (await t.engine.history.list(20)).flatMap((entry) => (entry.details as { change?: { summary: string } } | undefined)?.change?.summary ?? []);
    expect(changes.reverse()).toEqual([
      'Created environment “staging”: 3 variables, 1 kept in Secrets (staging-api_key)',
      'Saved environment “staging”: 3 variables, 1 kept in Secrets (staging-api_key)',
      'Chose environment “staging” for the requests sent from the workbench',
      'Renamed environment “staging” to “stage”: 1 variable, 1 kept in Secrets (staging-api_key)',
      'Deleted environment “stage”',
    ]);
    expect(JSON.stringify(await t.engine.history.list(20))).not.toContain(SECRET);
  });

  it('refuses a secret variable without a value, a name that is no file name, and one taken', async () => {
    await expect(call('saveEnvironment', { name: 'dev', variables: [{ name: 'key', secret: true }] })).rejects.toMatchObject({ status: 400, detail: expect.stringContaining('“key” is secret: give its value') });
    await expect(call('saveEnvironment', { name: 'a/b', variables: [] })).rejects.toMatchObject({ status: 400, detail: expect.stringContaining('cannot hold /') });
    await expect(call('saveEnvironment', { name: 'dev', variables: [{ name: 'not a name', value: 'x' }] })).rejects.toMatchObject({ status: 400 });
    await call('saveEnvironment', { name: 'dev', variables: [] });
    await expect(call('saveEnvironment', { name: 'dev', variables: [] })).rejects.toMatchObject({ status: 409 });
    await expect(call('setActiveEnvironment', { name: 'nowhere' })).rejects.toMatchObject({ status: 404 });
    // Nothing of a refused save reached Secrets.
    expect(await call('listSecrets')).toEqual([]);
  });

  it('is chosen per collections folder, remembered by the engine and never written into the folder', async () => {
    await call('saveEnvironment', { name: 'local', variables: [{ name: 'x', value: '1' }] });
    const before = readFileSync(environmentFile('local'), 'utf8');
    expect((await call('setActiveEnvironment', { name: 'local' })).active).toBe('local');
    expect(readFileSync(environmentFile('local'), 'utf8')).toBe(before);

    // Another folder has its own choice (none yet); back in the first, the choice is there again.
    const other = tempDir('tokenbench-other-folder-');
    await call('setCollectionsFolder', { folder: other });
    expect(await call('listEnvironments')).toEqual({ folder: other, active: null, environments: [] });
    await call('setCollectionsFolder', { folder: null });
    expect((await call('listEnvironments')).active).toBe('local');

    // And across a restart.
    const dataDir = t.dataDir!;
    await t.engine.stop();
    t = await startTestEngine({ dataDir, workbenchRoutes: true });
    expect((await call('listEnvironments')).active).toBe('local');
  });

  it('reserves the folder name environments: no collection takes it, and requests saved there before are listed to move out', async () => {
    const request = { kind: 'proxy', method: 'GET', target: 'https://api.example.com/v1', headers: [], service: { transaction: '', trace: '', keepAlive: '', connection: '' }, bodyMode: 'none', body: '' };
    await expect(call('saveRequest', { collection: 'environments', name: 'x', request })).rejects.toMatchObject({ status: 400, detail: expect.stringContaining('folder of the environments') });
    await expect(call('saveRequest', { collection: 'Environments', name: 'x', request })).rejects.toMatchObject({ status: 400 });

    mkdirSync(join(t.engine.collectionsFolder, 'environments'), { recursive: true });
    writeFileSync(join(t.engine.collectionsFolder, 'environments', 'Old.request.json'), JSON.stringify(request));
    await call('saveEnvironment', { name: 'local', variables: [] });
    const listed = await call('listCollections');
    expect(listed.collections).toEqual([
      { name: 'environments', requests: [{ name: 'Old', request: null, problem: 'in “environments”, the folder of the environments: move it to another collection', secrets_in_plain_text: [] }] },
    ]);
    const moved = await call('moveRequest', { from: { collection: 'environments', name: 'Old' }, to: { collection: 'Kept', name: 'Old' } });
    expect(moved.collections.map((c: { name: string }) => c.name)).toEqual(['Kept']);
    // The environments' folder stays with its environment.
    expect((await call('listEnvironments')).environments.map((e: { name: string }) => e.name)).toEqual(['local']);
  });
});

describe('a request that refers to variables', () => {
  /** A proxied request as the Composer sends it, its destination and values written as references. */
  const wire = (body: string) => ({
    application_id: t.engine.bootstrapKeys!.private.application_id,
    method: 'POST',
    path: '/proxy/v1/charges?order=${env:order}',
    headers: [
      ['BT-PROXY-URL', '${env:base_url}'],
      ['Content-Type', 'application/json'],
      ['Authorization', 'Bearer ${env:api_key}'],
      ['X-Note', '${env:note}'],
    ],
    body,
  });

  beforeEach(async () => {
    await call('saveEnvironment', {
      name: 'local',
      variables: [
        { name: 'base_url', value: destination.url },
        { name: 'card', value: await cardToken() },
        { name: 'order', value: 'o 1/2' },
        { name: 'note', value: 'has ${env:order} in it' },
        { name: 'quoted', value: 'say "hi"\nthen go' },
        { name: 'api_key', value: SECRET, secret: true },
      ],
    });
  });

  it('is refused with a 400 naming what is missing while no environment is chosen, and nothing is sent', async () => {
    const response = await t.workbench('sendRequest', { id: crypto.randomUUID(), ...wire('{}') });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/^The request refers to 4 values that cannot be put in \(no environment is chosen\): No environment is chosen to give “order”/);
    expect(received).toEqual([]);
  });

  it('goes out with every value put in, a token id in a variable detokenized, and no value read again for references', async () => {
    await call('setActiveEnvironment', { name: 'local' });
    const body = `{"number": "{{ \${env:card} | json: '$.number' }}", "quoted": "\${env:quoted}", "key": "\${env:api_key}"}`;
    const exchange = await call('sendRequest', { id: crypto.randomUUID(), ...wire(body) });
    expect(exchange.outcome).toMatchObject({ kind: 'response', status: 200 });
    expect(received).toHaveLength(1);
    const [arrived] = received;
    expect(arrived.path).toBe('/v1/charges?order=o%201/2');
    expect(arrived.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(arrived.headers['x-note']).toBe('has ${env:order} in it');
    expect(JSON.parse(arrived.body)).toEqual({ number: PAN, quoted: 'say "hi"\nthen go', key: SECRET });

    // History keeps the path and headers as written, the body with the secret as its reference, and the environment.
    await t.engine.history.flush();
    const [entry] = (await t.engine.history.list(10)).filter((e) => e.kind === 'proxy');
    expect(entry).toMatchObject({ path: '/proxy/v1/charges?order=${env:order}', workbench_environment: 'local', status: 200 });
    expect(entry.request_headers).toEqual(
      expect.arrayContaining([
        ['BT-PROXY-URL', '${env:base_url}'],
        ['Authorization', 'Bearer ${env:api_key}'],
        ['X-Note', '${env:note}'],
      ]),
    );
    expect((entry.request_body as { text: string }).text).toContain('"key": "${env:api_key}"');
    expect(JSON.stringify(await t.engine.history.list(10))).not.toContain(SECRET);
    // So does what the page is shown of the request.
    expect(JSON.stringify(exchange)).not.toContain(SECRET);
  });

  it('is refused with a 400 naming the variable and the environment when one is not set, and nothing is sent', async () => {
    await call('setActiveEnvironment', { name: 'local' });
    const response = await t.workbench('sendRequest', { id: crypto.randomUUID(), ...wire('{"card": "${env:missing}"}') });
    expect(response.status).toBe(400);
    expect(response.body.detail).toBe(
      'The environment “local” has no variable “missing” (the body refers to it): add it in Settings, under Environments, or choose another environment beside Send.',
    );
    expect(received).toEqual([]);
  });

  it('is flagged before sending: each reference that cannot be put in, and the proxy’s flags where they are in the body as written', async () => {
    await call('setActiveEnvironment', { name: 'local' });
    const body = '{"a": "${env:missing}", "b": "{{ ${env:card} | json: \'$.number\' }}", "c": "{{ 00000000-0000-4000-8000-000000000000 }}"}';
    const checked = await call('checkRequest', { target_id: null, ...wire(body) });
    type Flag = { kind: string; at: { from: number; to: number } };
    const [unresolved] = checked.flags;
    const unknown = checked.flags.find((flag: Flag) => flag.kind === 'unknown_token');
    expect(unresolved).toMatchObject({
      severity: 'error',
      kind: 'unresolved_reference',
      at: { part: 'body' },
      message: 'The environment “local” has no variable “missing”: ${env:missing} in the body cannot be put in, so the request is not sent',
    });
    expect(body.slice(unresolved.at.from, unresolved.at.to)).toBe('${env:missing}');
    expect(body.slice(unknown.at.from, unknown.at.to)).toBe('{{ 00000000-0000-4000-8000-000000000000 }}');
    expect(checked.expressions.map((e: { from: number; to: number }) => body.slice(e.from, e.to))).toEqual([
      "{{ ${env:card} | json: '$.number' }}",
      '{{ 00000000-0000-4000-8000-000000000000 }}',
    ]);
  });

  it('becomes code with the variables’ values in it, a secret one read from the shell’s environment', async () => {
    await call('setActiveEnvironment', { name: 'local' });
    const { snippet } = await call('requestSnippet', { ...wire('{"key": "x"}'), format: 'curl' });
    expect(snippet).toContain(`${t.url}/proxy/v1/charges?order=o%201/2`);
    expect(snippet).toContain(`BT-PROXY-URL: ${destination.url}`);
    expect(snippet).toContain('"Authorization: Bearer $LOCAL_API_KEY"');
    expect(snippet).not.toContain(SECRET);
  });
});
