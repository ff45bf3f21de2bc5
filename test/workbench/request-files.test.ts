import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SavedRequest } from '../../shared/workbench/collection-contract';
import { SAVED_REQUEST } from '../support/saved-request';
import { workbenchReply } from './support/workbench-engine';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * A saved request's file diffs well: its body is kept as lines, so a one-line change to a pretty-printed body is a
 * one-line change to the file, and it names the application it is sent as. Files of the first format still load, and
 * are rewritten only when saved.
 */

let t: TestEngine;
beforeEach(async () => {
  t = await startTestEngine({ workbenchRoutes: true });
});
afterEach(() => t.stop());

const call = (name: string, request: unknown = {}) => workbenchReply(t, name, request);

const fileOf = (collection: string, name: string) => join(t.engine.collectionsFolder, collection, `${name}.request.json`);
const listed = (view: { collections: { name: string; requests: { name: string }[] }[] }, collection: string, name: string) =>
  view.collections.find((c) => c.name === collection)!.requests.find((r) => r.name === name) as unknown as { request: SavedRequest | null; send_as?: unknown };

const CHARGE = JSON.stringify({ amount: 1200, currency: 'usd', card: { number: '{{ card | json: \'$.number\' }}', exp: '12/30' }, metadata: { order: 'o-1' } }, null, 2);

describe('a saved request’s file', () => {
  it('changes in one line when one line of its pretty-printed body changes', async () => {
    await call('saveRequest', { collection: 'Payments', name: 'Charge', request: { ...SAVED_REQUEST, body: CHARGE } });
    const before = readFileSync(fileOf('Payments', 'Charge'), 'utf8').split('\n');
    await call('saveRequest', { collection: 'Payments', name: 'Charge', request: { ...SAVED_REQUEST, body: CHARGE.replace('"usd"', '"eur"') }, overwrite: true });
    const after = readFileSync(fileOf('Payments', 'Charge'), 'utf8').split('\n');
    expect(after).toHaveLength(before.length);
    const changed = after.flatMap((line, i) => (line === before[i] ? [] : [[before[i], line]]));
    expect(changed).toEqual([['    "  \\"currency\\": \\"usd\\",",', '    "  \\"currency\\": \\"eur\\",",']]);
  });

  it('keeps the body exactly, line endings and a last line break included', async () => {
    const body = 'first\r\nsecond\n\nlast\n';
    const view = await call('saveRequest', { collection: 'Payments', name: 'Text', request: { ...SAVED_REQUEST, bodyMode: 'text', body } });
    expect(listed(view, 'Payments', 'Text').request!.body).toBe(body);
    expect(JSON.parse(readFileSync(fileOf('Payments', 'Text'), 'utf8')).body).toEqual(['first\r', 'second', '', 'last', '']);
  });

  it('names the application it is sent as, found again by name in any vault', async () => {
    const checkout = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'Checkout v2', type: 'private', permissions: ['token:use'] } });
    const view = await call('saveRequest', { collection: 'Payments', name: 'Charge', request: SAVED_REQUEST, send_as: 'Checkout v2' });
    expect(JSON.parse(readFileSync(fileOf('Payments', 'Charge'), 'utf8')).send_as).toBe('Checkout v2');
    expect(listed(view, 'Payments', 'Charge').send_as).toEqual({ name: 'Checkout v2', application_id: checkout.body.id });

    // In a vault without it (a teammate's, or this one once it is deleted) the name stays, and the page says so.
    await t.call('DELETE', `/applications/${checkout.body.id}`, { key: t.managementKey });
    expect(listed(await call('listCollections'), 'Payments', 'Charge').send_as).toEqual({ name: 'Checkout v2', application_id: null });
  });

  it('of the first format loads as it was, is left as it is by listing, and is rewritten in the new one only when saved', async () => {
    mkdirSync(join(t.engine.collectionsFolder, 'From git'), { recursive: true });
    const old = `${JSON.stringify({ ...SAVED_REQUEST, body: CHARGE }, null, 2)}\n`;
    writeFileSync(fileOf('From git', 'Old'), old);
    const request = listed(await call('listCollections'), 'From git', 'Old');
    expect(request).toMatchObject({ request: { ...SAVED_REQUEST, body: CHARGE }, problem: null });
    expect(readFileSync(fileOf('From git', 'Old'), 'utf8')).toBe(old);

    await call('saveRequest', { collection: 'From git', name: 'Old', request: request.request, overwrite: true });
    const rewritten = JSON.parse(readFileSync(fileOf('From git', 'Old'), 'utf8'));
    expect(rewritten).toMatchObject({ version: 2, body: CHARGE.split('\n') });
  });

  it('of the new format that is not a saved request is listed with what is wrong', async () => {
    mkdirSync(join(t.engine.collectionsFolder, 'From git'), { recursive: true });
    writeFileSync(fileOf('From git', 'Broken'), JSON.stringify({ version: 2, ...SAVED_REQUEST, body: 'one string' }));
    expect(listed(await call('listCollections'), 'From git', 'Broken')).toMatchObject({ request: null, problem: expect.stringMatching(/^body: /) });
  });
});
