import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../electron/cli/serve-options';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/**
 * node22 `runtime.dependencies` checked when a proxy is saved (docs/api.md, Code runtime): what the dependencies
 * folder (`serve --code-dependencies DIR`, the engine's `codeDependenciesDir`) cannot provide makes the proxy
 * `failed` with `dependency_unavailable`; the folder holding them, or a fixed definition, makes it `active`.
 */
let t: TestEngine;
let folder: string;
let echo: string;

/** A tiny package at `version` in the folder's node_modules. */
function install(version: string) {
  const dir = join(folder, 'node_modules', 'tiny-pad');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'tiny-pad', version, main: 'index.js' }));
  writeFileSync(join(dir, 'index.js'), `module.exports = (s) => '<' + s + '@${version}>';`);
}

const transform = (version: string) => ({
  code: "const pad = require('tiny-pad'); module.exports = async (event) => ({ req: { body: { padded: pad(event.req.body.word) } } });",
  options: { runtime: { image: 'node22', dependencies: { 'tiny-pad': version } } },
});
const invoke = (key: string) => t.call('POST', '/proxy', { key: t.privateKey, body: { word: 'hi' }, headers: { 'BT-PROXY-KEY': key } });
const padded = async (key: string) => {
  const res = await invoke(key);
  expect(res.status).toBe(200);
  return JSON.parse(res.body.body).padded as string;
};
const read = async (id: string) => (await t.call('GET', `/proxies/${id}`, { key: t.managementKey })).body;

beforeAll(async () => {
  folder = tempDir('tokenbench-deps-');
  t = await startTestEngine({ inMemory: true, echoPort: 0, codeDependenciesDir: folder });
  echo = t.engine.echoUrl!;
});
afterAll(async () => {
  await t.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('node22 dependencies at save', () => {
  it('saves a proxy whose dependencies the folder lacks as failed, answers 409 when invoked, and is active once the folder holds them', async () => {
    const created = await t.call('POST', '/proxies', { key: t.managementKey, body: { name: 'padder', destination_url: echo, request_transforms: [transform('1.0.0')] } });
    expect(created.status).toBe(201);
    expect(created.body.state).toBe('failed');
    expect(created.body.requested).toMatchObject({
      error_code: 'dependency_unavailable',
      proxy: { destination_url: echo, request_transforms: [transform('1.0.0')] },
    });
    expect(created.body.requested.error_message).toContain('tiny-pad@1.0.0');

    const refused = await invoke(created.body.key);
    expect(refused.status).toBe(409);
    expect(refused.body.proxy_error.detail).toMatch(/dependency_unavailable|tiny-pad@1\.0\.0/);
    expect(refused.headers['bt-proxy-destination-status']).toBeUndefined();

    install('1.0.0');
    expect(await read(created.body.id)).toMatchObject({ state: 'active', requested: null });
    expect(await padded(created.body.key)).toBe('<hi@1.0.0>');
  });

  it('keeps the live version serving when a change asks for what is not there, and a fixed PATCH makes it active', async () => {
    install('1.0.0');
    const { id, key } = (await t.call('POST', '/proxies', { key: t.managementKey, body: { name: 'live', destination_url: echo, request_transforms: [transform('1.0.0')] } })).body;
    expect(await padded(key)).toBe('<hi@1.0.0>');

    const replaced = await t.call('PUT', `/proxies/${id}`, { key: t.managementKey, body: { name: 'live', destination_url: echo, request_transforms: [transform('2.0.0')] } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ state: 'failed', request_transforms: [transform('1.0.0')], requested: { error_code: 'dependency_unavailable' } });
    expect(replaced.body.requested.error_message).toContain('tiny-pad@2.0.0');
    expect(await padded(key)).toBe('<hi@1.0.0>');

    const patched = await t.call('PATCH', `/proxies/${id}`, {
      key: t.managementKey,
      raw: JSON.stringify({ request_transforms: [transform('1.0.0')] }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(204);
    expect(await read(id)).toMatchObject({ state: 'active', requested: null });
  });

  it('without a dependencies folder every declared dependency is unavailable, and serve names the folder with --code-dependencies', async () => {
    const bare = await startTestEngine({ inMemory: true, echoPort: 0 });
    try {
      const created = await bare.call('POST', '/proxies', { key: bare.managementKey, body: { name: 'bare', destination_url: bare.engine.echoUrl, request_transforms: [transform('1.0.0')] } });
      expect(created.body).toMatchObject({ state: 'failed', requested: { error_code: 'dependency_unavailable' } });
      expect(created.body.requested.error_message).toMatch(/name a folder/);
    } finally {
      await bare.stop();
    }
    expect(parseServeArgs(['--code-dependencies', 'deps'])).toMatchObject({ codeDependenciesDir: join(process.cwd(), 'deps') });
  });
});
