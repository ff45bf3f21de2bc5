import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callMethod } from '../../electron/engine';
import type { CollectionsView, SavedRequest } from '../../shared/workbench/contract';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/** Saved requests as plain files: the workbench's methods over a real folder. */
let t: TestEngine;
beforeEach(async () => {
  t = await startTestEngine({});
});
afterEach(() => t.stop());

const REQUEST: SavedRequest = {
  kind: 'proxy',
  method: 'POST',
  target: 'https://api.example.com/v1/charges',
  headers: [{ name: 'X-Order', value: 'o-1', enabled: true }],
  service: { transaction: '', trace: '', keepAlive: '', connection: '' },
  bodyMode: 'json',
  body: '{"pan": "{{ card | json: \'$.number\' }}"}',
};
const call = (name: 'listCollections' | 'saveRequest' | 'moveRequest' | 'deleteRequest', request: unknown) =>
  callMethod(t.engine.workbench, name, request) as Promise<CollectionsView>;
const names = (view: CollectionsView) => view.collections.map((c) => `${c.name}: ${c.requests.map((r) => r.name).join(', ')}`);

describe('collections of saved requests', () => {
  it('live beside the vault, one readable file per request', async () => {
    expect(t.engine.collectionsFolder).toBe(join(t.dataDir!, 'collections'));
    const view = await call('saveRequest', { collection: 'Payments', name: 'Charge a card', request: REQUEST });
    expect(names(view)).toEqual(['Payments: Charge a card']);
    const file = join(t.engine.collectionsFolder, 'Payments', 'Charge a card.request.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(REQUEST);
    expect(readFileSync(file, 'utf8')).toContain('\n  "target": "https://api.example.com/v1/charges",\n');
  });

  it('are saved over only when asked, renamed, moved between collections and deleted', async () => {
    await call('saveRequest', { collection: 'Payments', name: 'Charge', request: REQUEST });
    await expect(call('saveRequest', { collection: 'Payments', name: 'Charge', request: REQUEST })).rejects.toMatchObject({ status: 409 });
    await call('saveRequest', { collection: 'Payments', name: 'Charge', request: { ...REQUEST, method: 'PUT' }, overwrite: true });
    expect((await call('listCollections', {})).collections[0].requests[0].request?.method).toBe('PUT');

    expect(names(await call('moveRequest', { from: { collection: 'Payments', name: 'Charge' }, to: { collection: 'Payments', name: 'Charge twice' } }))).toEqual([
      'Payments: Charge twice',
    ]);
    expect(names(await call('moveRequest', { from: { collection: 'Payments', name: 'Charge twice' }, to: { collection: 'Refunds', name: 'Refund' } }))).toEqual([
      'Refunds: Refund',
    ]);
    // The emptied collection goes with its last request.
    expect(existsSync(join(t.engine.collectionsFolder, 'Payments'))).toBe(false);
    expect(names(await call('deleteRequest', { collection: 'Refunds', name: 'Refund' }))).toEqual([]);
    await expect(call('deleteRequest', { collection: 'Refunds', name: 'Refund' })).rejects.toMatchObject({ status: 404 });
  });

  it('refuse every name or link that would leave the folder', async () => {
    for (const [collection, name] of [['..', 'x'], ['Payments', '../../escape'], ['a/b', 'x'], ['Payments', '.hidden'], ['Payments', 'con'], ['C:\\x', 'y'], ['Payments', 'bell\u0007']]) {
      await expect(call('saveRequest', { collection, name, request: REQUEST }), `${collection} / ${name}`).rejects.toMatchObject({ status: 400 });
    }
    const outside = tempDir('tokenbench-outside-');
    symlinkSync(outside, join(t.engine.collectionsFolder, 'Linked'));
    await expect(call('saveRequest', { collection: 'Linked', name: 'x', request: REQUEST })).rejects.toMatchObject({
      status: 400,
      detail: expect.stringContaining('outside the collections folder'),
    });
    expect(existsSync(join(outside, 'x.request.json'))).toBe(false);
  });

  it('tell the workbench live about files changed outside the app, and list a broken one with why', async () => {
    const updates: CollectionsView[] = [];
    const stop = t.engine.workbench.live((event) => {
      if (event.type === 'update' && event.collections) updates.push(event.collections);
    });
    try {
      mkdirSync(join(t.engine.collectionsFolder, 'From git'), { recursive: true });
      writeFileSync(join(t.engine.collectionsFolder, 'From git', 'Teammate.request.json'), JSON.stringify({ ...REQUEST, method: 'PATCH' }));
      await vi.waitFor(() => expect(updates.at(-1)?.collections[0].requests[0]).toMatchObject({ name: 'Teammate', request: { method: 'PATCH' } }));
      writeFileSync(join(t.engine.collectionsFolder, 'From git', 'Broken.request.json'), '{"kind": "proxy"');
      await vi.waitFor(() => expect(updates.at(-1)?.collections[0].requests[0]).toMatchObject({ name: 'Broken', request: null, problem: expect.any(String) }));
    } finally {
      stop();
    }
  });

  it('with a vault in memory, live in a temporary folder the engine names', async () => {
    const memory = await startTestEngine({ inMemory: true });
    try {
      expect(memory.engine.collectionsFolder).toMatch(/tokenbench-collections-/);
      expect((await callMethod(memory.engine.workbench, 'listCollections', {})) as CollectionsView).toMatchObject({ folder: memory.engine.collectionsFolder, collections: [] });
    } finally {
      await memory.stop();
    }
  });
});
