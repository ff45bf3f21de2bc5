import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isAppUrl } from '../../electron/main/navigation-guard';
import { workbenchIpc, type WorkbenchIpc, type WorkbenchIpcEvent } from '../../electron/main/workbench-ipc';
import type { LiveEvent } from '../../shared/workbench/live-contract';
import { METHOD_NAMES, WORKBENCH_METHODS } from '../../shared/workbench/methods';
import { ipcChannel, ipcStreamControl } from '../../shared/workbench/transport';
import { startTestEngine, type TestEngine } from '../support/test-engine';

const APP_URL = 'file:///opt/tokenbench/out/renderer/index.html';

/** Stands in for Electron's WebContents: records what the main process pushes to the window. */
class FakeWindow extends EventEmitter {
  static next = 1;
  readonly id = FakeWindow.next++;
  readonly received: { channel: string; event: LiveEvent }[] = [];
  destroyed = false;
  send(channel: string, event: LiveEvent) {
    this.received.push({ channel, event });
  }
  isDestroyed() {
    return this.destroyed;
  }
  destroy() {
    this.destroyed = true;
    this.emit('destroyed');
  }
}

function eventFrom(frameUrl: string | null, sender = new FakeWindow()): WorkbenchIpcEvent {
  return { senderFrame: frameUrl === null ? null : { url: frameUrl }, sender };
}

let bench: TestEngine;
let ipc: WorkbenchIpc;
let invoke: (channel: string, event: WorkbenchIpcEvent, payload?: unknown, page?: unknown) => unknown;
/** The engine's own history listeners, before any window subscribes. */
let baseline: number;
const liveSubscriptions = () => bench.engine.events.listenerCount('request') - baseline;

beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0 });
  ipc = workbenchIpc(bench.engine.workbench);
  const handlers = new Map(ipc.handlers((url) => isAppUrl(url, APP_URL)));
  invoke = (channel, event, payload, page) => handlers.get(channel)!(event, payload, page);
  baseline = bench.engine.events.listenerCount('request');
});

afterEach(async () => {
  ipc.close();
  await bench.stop();
});

const createToken = (data: string) => bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data } });

describe('workbench IPC in the main process', () => {
  it('registers a guarded handler for every method of the table: a channel per call, start and stop per stream', () => {
    const channels = ipc.handlers(() => true).map(([channel]) => channel);
    const expected = METHOD_NAMES.flatMap((name) =>
      WORKBENCH_METHODS[name].kind === 'call' ? [`workbench:${name}`] : [`workbench:${name}:start`, `workbench:${name}:stop`],
    );
    expect(channels.sort()).toEqual(expected.sort());
    expect(channels).toContain('workbench:getStatus');
    expect(channels).toContain('workbench:live:start');
  });

  it('refuses every channel to a frame that is not the app, and to a call with no frame', () => {
    for (const frame of ['https://evil.example/', 'file:///tmp/evil.html', null]) {
      for (const [channel] of ipc.handlers(() => true)) {
        expect(() => invoke(channel, eventFrom(frame)), `${channel} from ${frame}`).toThrow('IPC refused: the caller is not the Tokenbench window');
      }
    }
    // Nothing subscribed on the refused live-start calls.
    expect(liveSubscriptions()).toBe(0);
  });

  it('answers the app with the engine status and history', async () => {
    await createToken('first');
    await expect(invoke(ipcChannel('getStatus'), eventFrom(APP_URL))).resolves.toMatchObject({
      ok: true,
      value: { url: bench.url, tokenCount: 1, applicationCount: 2 },
    });
    const history = (await invoke(ipcChannel('listHistory'), eventFrom(APP_URL), { limit: 5 })) as { value: { method: string; path: string; status: number }[] };
    expect(history.value[0]).toMatchObject({ method: 'POST', path: '/tokens', status: 201 });
  });

  it("reveals a proxied request's outbound body to the app on its explicit call, and says why it cannot", async () => {
    const card = await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'card_number', data: '4242424242424242' } });
    const sent = await bench.call('POST', '/proxy', {
      key: bench.privateKey,
      body: { pan: `{{ ${card.body.id} }}` },
      headers: { 'BT-PROXY-URL': bench.engine.echoUrl!, 'BT-TRACE-ID': 'ipc-reveal' },
    });
    expect(sent.status).toBe(200);
    await bench.engine.history.flush();
    const entry = (await bench.engine.history.list(10)).find((e) => e.trace_id === 'ipc-reveal')!;
    await expect(invoke(ipcChannel('revealOutbound'), eventFrom(APP_URL), { id: entry.id })).resolves.toEqual({
      ok: true,
      value: { detokenized_body: '{"pan":"4242424242424242"}' },
    });
    // The same problem the HTTP workbench answers, so the page reads one shape from both.
    await expect(invoke(ipcChannel('revealOutbound'), eventFrom(APP_URL), { id: 'no-such-entry' })).resolves.toMatchObject({
      ok: false,
      problem: { status: 404, detail: 'No such request in the history' },
    });
  });

  it('validates payloads once, at the handler, and says what is wrong as a 400 problem naming the field', async () => {
    for (const [channel, payload, field] of [
      [ipcChannel('listHistory'), { limit: 'lots' }, 'limit'],
      [ipcChannel('listHistory'), { limit: 10_000 }, 'limit'],
      [ipcChannel('revealOutbound'), {}, 'id'],
      [ipcChannel('getStatus'), { sneaky: true }, 'body'],
    ] as const) {
      const outcome = (await invoke(channel, eventFrom(APP_URL), payload)) as { ok: boolean; problem: { status: number; errors: object } };
      expect(outcome.ok, channel).toBe(false);
      expect(outcome.problem.status).toBe(400);
      expect(outcome.problem.errors).toHaveProperty(field);
    }
  });

  it('refuses a call naming a page the workbench does not have, as a 400 problem naming the page', async () => {
    const outcome = (await invoke(ipcChannel('getStatus'), eventFrom(APP_URL), {}, 'backend')) as { ok: boolean; problem: { status: number; errors: object } };
    expect(outcome).toMatchObject({ ok: false, problem: { status: 400 } });
    expect(outcome.problem.errors).toHaveProperty('page');
  });

  it('pushes live history to a subscribed window, and stops when the window goes away', async () => {
    const window = new FakeWindow();
    invoke(ipcStreamControl('live', 'start'), eventFrom(APP_URL, window));
    expect(window.received).toMatchObject([{ channel: ipcChannel('live'), event: { type: 'connected', status: { tokenCount: 0 } } }]);

    await createToken('canary-plaintext-4242');
    await vi.waitFor(() => expect(window.received.length).toBe(2));
    const { channel, event } = window.received[1];
    expect(channel).toBe(ipcChannel('live'));
    expect(event).toMatchObject({ type: 'update', status: { tokenCount: 1 }, entries: [{ method: 'POST', path: '/tokens', status: 201 }] });
    expect(JSON.stringify(event)).not.toContain('canary-plaintext-4242');

    window.destroy();
    expect(liveSubscriptions()).toBe(0);
  });

  it('keeps one subscription per window across reloads, and ends them on stop and on close', async () => {
    const window = new FakeWindow();
    invoke(ipcStreamControl('live', 'start'), eventFrom(APP_URL, window));
    invoke(ipcStreamControl('live', 'start'), eventFrom(APP_URL, window));
    await createToken('once');
    const updates = () => window.received.filter(({ event }) => event.type === 'update');
    await vi.waitFor(() => expect(updates().length).toBeGreaterThan(0));
    expect(updates()).toHaveLength(1);
    expect(window.listenerCount('destroyed')).toBe(1);
    invoke(ipcStreamControl('live', 'stop'), eventFrom(APP_URL, window));
    expect(liveSubscriptions()).toBe(0);

    invoke(ipcStreamControl('live', 'start'), eventFrom(APP_URL));
    invoke(ipcStreamControl('live', 'start'), eventFrom(APP_URL));
    expect(liveSubscriptions()).toBe(1);
    ipc.close();
    expect(liveSubscriptions()).toBe(0);
  });
});
