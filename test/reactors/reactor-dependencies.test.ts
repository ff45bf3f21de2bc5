import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/**
 * A node22 reactor whose `runtime.dependencies` the dependencies folder lacks (docs/api.md, Reactors): saved `failed`
 * with `dependency_unavailable`, 409 when invoked, and `active` once the folder holds them, on its next read or call.
 */
let t: TestEngine;
let folder: string;

beforeAll(async () => {
  folder = tempDir('tokenbench-deps-');
  t = await startTestEngine({ inMemory: true, codeDependenciesDir: folder });
});
afterAll(async () => {
  await t.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('node22 reactor dependencies', () => {
  it('is failed until the folder holds them, then active on the next read, and runs with them', async () => {
    const code = "const pad = require('tiny-pad'); module.exports = async (event) => ({ res: { body: { padded: pad(event.req.args.word) } } });";
    const created = await t.call('POST', '/reactors', { key: t.managementKey, body: { name: 'padder', code, runtime: { image: 'node22', dependencies: { 'tiny-pad': '1.0.0' } } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ state: 'failed', requested: { error_code: 'dependency_unavailable', reactor: { code } } });
    expect((await t.call('POST', `/reactors/${created.body.id}/react`, { key: t.privateKey, body: { args: { word: 'hi' } } })).status).toBe(409);

    const dir = join(folder, 'node_modules', 'tiny-pad');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'tiny-pad', version: '1.0.0', main: 'index.js' }));
    writeFileSync(join(dir, 'index.js'), "module.exports = (s) => '<' + s + '>';");

    expect((await t.call('GET', `/reactors/${created.body.id}`, { key: t.managementKey })).body).toMatchObject({ state: 'active', requested: null });
    const res = await t.call('POST', `/reactors/${created.body.id}/react`, { key: t.privateKey, body: { args: { word: 'hi' } } });
    expect(res.body).toEqual({ padded: '<hi>' });
  });
});
