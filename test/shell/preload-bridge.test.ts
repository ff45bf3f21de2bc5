import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { workbenchBridge, type IpcRendererLike } from '../../electron/preload/bridge';
import { isAppUrl } from '../../electron/main/navigation-guard';
import { workbenchIpc, type IpcHandler, type WorkbenchIpc } from '../../electron/main/workbench-ipc';
import { ipcTransport } from '../../renderer/src/api/ipc-transport';
import { workbenchClient } from '../../renderer/src/api/workbench-client';
import { METHOD_NAMES, type StreamLost, type StreamEvent, type WorkbenchApi } from '../../shared/workbench/methods';
import type { PageId } from '../../shared/workbench/pages';
import { BRIDGE_NAME, WorkbenchError } from '../../shared/workbench/transport';
import { startTestEngine, type TestEngine } from '../support/test-engine';

const APP_URL = 'file:///opt/tokenbench/out/renderer/index.html';

const exposed = vi.hoisted(() => new Map<string, unknown>());
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (name: string, api: unknown) => exposed.set(name, api) },
  ipcRenderer: { invoke: () => Promise.resolve(), on: () => undefined, off: () => undefined },
}));

describe('the preload script', () => {
  it('exposes one object on window, with one function per method of the table and nothing else', async () => {
    await import('../../electron/preload/index');
    expect([...exposed.keys()]).toEqual([BRIDGE_NAME]);
    const bridge = exposed.get(BRIDGE_NAME) as Record<string, unknown>;
    expect(Object.keys(bridge).sort()).toEqual([...METHOD_NAMES].sort());
    expect(Object.values(bridge).every((value) => typeof value === 'function')).toBe(true);
  });
});

/**
 * Electron's IPC replaced by a loopback between the preload's ipcRenderer and the main process's handlers: the page's
 * client, the bridge, the handlers and the engine are all the real ones.
 */
class LoopbackIpc extends EventEmitter implements IpcRendererLike {
  readonly id = 1;
  destroyed = false;
  readonly invoked: string[] = [];
  constructor(private readonly handlers: Map<string, IpcHandler>) {
    super();
  }
  async invoke(channel: string, ...args: unknown[]) {
    this.invoked.push(channel);
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler({ senderFrame: { url: APP_URL }, sender: this }, ...args);
  }
  // The renderer side listens with (event, message); the main side pushes with send(channel, message).
  send(channel: string, message: unknown) {
    this.emit(channel, {}, message);
  }
  isDestroyed() {
    return this.destroyed;
  }
}

describe('the method table over IPC, from the page to the engine and back', () => {
  let bench: TestEngine;
  let ipc: WorkbenchIpc;
  let loopback: LoopbackIpc;
  let api: WorkbenchApi;
  /** The page the client names on its calls, as the shell's address would. */
  let page: PageId | undefined;

  beforeEach(async () => {
    bench = await startTestEngine({ inMemory: true });
    ipc = workbenchIpc(bench.engine.workbench);
    loopback = new LoopbackIpc(new Map(ipc.handlers((url) => isAppUrl(url, APP_URL))));
    page = undefined;
    api = workbenchClient(ipcTransport(workbenchBridge(loopback)), () => page);
  });
  afterEach(async () => {
    ipc.close();
    await bench.stop();
  });

  it('answers calls with validated replies, and a failed call as the same problem the HTTP workbench gives', async () => {
    await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'x' } });
    expect(await api.getStatus()).toMatchObject({ url: bench.url, tokenCount: 1 });
    await bench.engine.history.flush();
    const [entry] = await api.listHistory({ limit: 1 });
    expect(entry).toMatchObject({ method: 'POST', path: '/tokens', status: 201, proxy: null });

    const opened = await bench.call('POST', '/transactions', { key: bench.privateKey });
    expect(await api.listTransactions()).toMatchObject({ transactions: [{ id: opened.body.id, state: 'open', operations: [] }], next: null });

    const failure = await api.revealOutbound({ id: 'no-such-entry' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkbenchError);
    expect((failure as WorkbenchError).message).toBe('No such request in the history');
    expect((failure as WorkbenchError).problem.status).toBe(404);
  });

  it('carries the page each call is made on to the history entries it causes', async () => {
    const card = (await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'shown' } })).body.id;
    page = 'tokens';
    await api.revealToken({ application_id: bench.engine.bootstrapKeys!.private.application_id, token_id: card });
    page = undefined;
    await api.revealToken({ application_id: bench.engine.bootstrapKeys!.private.application_id, token_id: card });
    await bench.engine.history.flush();
    const [unnamed, named] = await api.listHistory({ limit: 2 });
    expect(named).toMatchObject({ kind: 'workbench', path: `/tokens/${card}`, workbench_page: 'tokens' });
    expect(unnamed).toMatchObject({ kind: 'workbench', path: `/tokens/${card}`, workbench_page: null });
  });

  it('streams live events until unsubscribed, and stops the subscription in the main process', async () => {
    const events: (StreamEvent<'live'> | StreamLost)[] = [];
    const unsubscribe = api.live((event) => events.push(event));
    await vi.waitFor(() => expect(events).toMatchObject([{ type: 'connected', status: { tokenCount: 0 } }]));
    await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'live' } });
    await vi.waitFor(() => expect(events[1]).toMatchObject({ type: 'update', entries: [{ path: '/tokens' }] }));

    unsubscribe();
    await vi.waitFor(() => expect(loopback.invoked).toContain('workbench:live:stop'));
    expect(bench.engine.events.listenerCount('request')).toBe(0);
  });

  it('tells the subscriber the stream is lost when the main process refuses to start it', () => {
    const refusing = new LoopbackIpc(new Map());
    const events: unknown[] = [];
    workbenchClient(ipcTransport(workbenchBridge(refusing)), () => undefined).live((event) => events.push(event));
    return vi.waitFor(() => expect(events).toEqual([{ type: 'lost', retrying: false }]));
  });
});
