import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callMethod } from '../../electron/engine';
import type { CollectionsView } from '../../shared/workbench/collection-contract';
import { SAVED_REQUEST as REQUEST } from '../support/saved-request';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/** Saved requests as plain files: the workbench's methods over a real folder. */
let t: TestEngine;
beforeEach(async () => {
  t = await startTestEngine({ workbenchRoutes: true });
});
afterEach(() => t.stop());

const call = (name: 'listCollections' | 'saveRequest' | 'moveRequest' | 'deleteRequest', request: unknown) =>
  callMethod(t.engine.workbench, name, request) as Promise<CollectionsView>;
/** A call as the browser makes it: what a client gets back, refusals included. */
const overHttp = (name: 'saveRequest' | 'moveRequest' | 'deleteRequest', request: unknown) => t.workbench(name, request);
const names = (view: CollectionsView) => view.collections.map((c) => `${c.name}: ${c.requests.map((r) => r.name).join(', ')}`);

describe('collections of saved requests', () => {
  it('live beside the vault, one readable file per request', async () => {
    expect(t.engine.collectionsFolder).toBe(join(t.dataDir!, 'collections'));
    const view = await call('saveRequest', { collection: 'Payments', name: 'Charge a card', request: REQUEST });
    expect(names(view)).toEqual(['Payments: Charge a card']);
    const file = join(t.engine.collectionsFolder, 'Payments', 'Charge a card.request.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 2, ...REQUEST, body: [REQUEST.body] });
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
    rmSync(outside, { recursive: true });
  });

  it('never follow a link out of the folder, even one whose target does not exist', async () => {
    const outside = tempDir('tokenbench-outside-');
    const absent = join(outside, 'x.txt');
    const present = join(outside, 'kept.request.json');
    writeFileSync(present, JSON.stringify(REQUEST));
    const folder = join(t.engine.collectionsFolder, 'Payments');
    mkdirSync(folder, { recursive: true });
    // As a cloned repository can carry them: git stores links as they are.
    symlinkSync(absent, join(folder, 'Charge.request.json'));
    symlinkSync(present, join(folder, 'Kept.request.json'));
    await call('saveRequest', { collection: 'Payments', name: 'Refund', request: REQUEST });

    await expect(call('saveRequest', { collection: 'Payments', name: 'Charge', request: REQUEST })).rejects.toMatchObject({ status: 409 });
    await expect(call('saveRequest', { collection: 'Payments', name: 'Charge', request: REQUEST, overwrite: true })).rejects.toMatchObject({
      status: 409,
      detail: expect.stringContaining('a link to a file that does not exist'),
    });
    await expect(call('moveRequest', { from: { collection: 'Payments', name: 'Refund' }, to: { collection: 'Payments', name: 'Charge' } })).rejects.toMatchObject({ status: 409 });
    await expect(call('saveRequest', { collection: 'Payments', name: 'Kept', request: { ...REQUEST, method: 'PUT' }, overwrite: true })).rejects.toMatchObject({
      status: 400,
      detail: expect.stringContaining('outside the collections folder'),
    });
    await expect(call('moveRequest', { from: { collection: 'Payments', name: 'Kept' }, to: { collection: 'Refunds', name: 'Kept' } })).rejects.toMatchObject({ status: 400 });
    expect(existsSync(absent)).toBe(false);
    expect(JSON.parse(readFileSync(present, 'utf8'))).toEqual(REQUEST);

    // Listed with why; deleted, a link goes and what it names stays.
    expect((await call('listCollections', {})).collections[0].requests).toEqual([
      { name: 'Charge', request: null, problem: expect.stringContaining('a link to a file that does not exist'), secrets_in_plain_text: [] },
      { name: 'Kept', request: null, problem: expect.stringContaining('outside the collections folder'), secrets_in_plain_text: [] },
      { name: 'Refund', request: REQUEST, problem: null, secrets_in_plain_text: [] },
    ]);
    await call('deleteRequest', { collection: 'Payments', name: 'Charge' });
    await call('deleteRequest', { collection: 'Payments', name: 'Kept' });
    expect(readdirSync(folder)).toEqual(['Refund.request.json']);

    // A link that stays inside is followed: saved over, the file it leads to changes and the link stays a link.
    symlinkSync('Refund.request.json', join(folder, 'Alias.request.json'));
    await call('saveRequest', { collection: 'Payments', name: 'Alias', request: { ...REQUEST, method: 'PATCH' }, overwrite: true });
    expect(lstatSync(join(folder, 'Alias.request.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(join(folder, 'Refund.request.json'), 'utf8'))).toMatchObject({ method: 'PATCH' });
    expect(JSON.parse(readFileSync(present, 'utf8'))).toEqual(REQUEST);
    rmSync(outside, { recursive: true });
  });

  it('refuse names that no file system or no Windows takes as a file, with a 400 that names no server path', async () => {
    const refused = [
      ['Payments', '€'.repeat(100)],
      ['€'.repeat(100), 'Charge'],
      ['Payments', 'CONIN$'],
      ['Payments', 'conout$'],
      ['Payments', 'COM¹'],
      ['Payments', 'lpt³.old'],
      ['Payments', 'CON .json'],
      ['NUL .x', 'Charge'],
      ['Payments', 'aux..json'],
      ['Payments', 'invoice\u202Efdp.exe'],
      ['Payments', '\u2066hidden'],
      ['Payments', 'del\u007f'],
      // Not text: a file name would hold U+FFFD instead, which another name also gives.
      ['Payments', 'half \uD83D'],
    ];
    for (const [collection, name] of refused) {
      const res = await overHttp('saveRequest', { collection, name, request: REQUEST });
      expect(res.status, `${collection} / ${name}: ${res.text}`).toBe(400);
      expect(res.text).not.toContain(tmpdir());
    }
    // What looks like them but is not a device name is a name like any other.
    for (const name of ['COM10', 'console', 'con x', 'Ünïcödé 名前 (v2)', '€'.repeat(80)]) {
      expect((await overHttp('saveRequest', { collection: 'Payments', name, request: REQUEST })).status, name).toBe(200);
    }
    expect(readdirSync(t.engine.collectionsFolder)).toEqual(['Payments']);
  });

  it('refuse a request too large to keep as a file, and keep the saved one as it was', async () => {
    await call('saveRequest', { collection: 'Payments', name: 'Charge', request: REQUEST });
    const file = join(t.engine.collectionsFolder, 'Payments', 'Charge.request.json');
    const before = readFileSync(file);
    const large = { ...REQUEST, headers: Array.from({ length: 200 }, (_, i) => ({ name: `X-${i}`, value: 'é'.repeat(16 * 1024), enabled: true })) };
    await expect(call('saveRequest', { collection: 'Payments', name: 'Charge', request: large, overwrite: true })).rejects.toMatchObject({
      status: 413,
      detail: expect.stringMatching(/^The request would be a 7 MB file, over the 4 MB a saved request may take/),
    });
    expect(readFileSync(file)).toEqual(before);
    expect(readdirSync(join(t.engine.collectionsFolder, 'Payments'))).toEqual(['Charge.request.json']);
  });

  it('list a file too large to be a saved request, or not a file at all, with why and without reading it', async () => {
    const folder = join(t.engine.collectionsFolder, 'Payments');
    mkdirSync(folder, { recursive: true });
    // Sparse: 200 MB to anyone who reads it, nothing on the disk.
    const huge = openSync(join(folder, 'Huge.request.json'), 'w');
    ftruncateSync(huge, 200 * 1024 * 1024);
    closeSync(huge);
    // A named pipe: reading it would wait for a writer, forever.
    expect(spawnSync('mkfifo', [join(folder, 'Pipe.request.json')]).status).toBe(0);
    await call('saveRequest', { collection: 'Payments', name: 'Charge', request: REQUEST });
    expect((await call('listCollections', {})).collections[0].requests).toEqual([
      { name: 'Charge', request: REQUEST, problem: null, secrets_in_plain_text: [] },
      { name: 'Huge', request: null, problem: '200 MB, larger than any saved request (4 MB at most), so it was not read', secrets_in_plain_text: [] },
      { name: 'Pipe', request: null, problem: 'not a file (a folder, a named pipe or a device), so it was not read', secrets_in_plain_text: [] },
    ]);
    expect(lstatSync(join(folder, 'Pipe.request.json')).isFIFO()).toBe(true);
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
