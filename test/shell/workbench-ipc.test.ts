import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isAppUrl } from '../../electron/main/navigation-guard';
import { workbenchIpc, type WorkbenchIpc, type WorkbenchIpcEvent } from '../../electron/main/workbench-ipc';
import type { LiveEvent } from '../../shared/workbench/contract';
import { IPC_CHANNELS, type InvokeChannel } from '../../shared/workbench/transport';
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
let invoke: (channel: InvokeChannel, event: WorkbenchIpcEvent, payload?: unknown) => unknown;
/** The engine's own history listeners, before any window subscribes. */
let baseline: number;
const liveSubscriptions = () => bench.engine.history.listenerCount('entry') - baseline;

beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, echoPort: 0 });
  ipc = workbenchIpc(bench.engine);
  const handlers = new Map(ipc.handlers((url) => isAppUrl(url, APP_URL)));
  invoke = (channel, event, payload) => handlers.get(channel)!(event, payload);
  baseline = bench.engine.history.listenerCount('entry');
});

afterEach(async () => {
  ipc.close();
  await bench.stop();
});

const createToken = (data: string) => bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data } });

describe('workbench IPC in the main process', () => {
  it('registers a guarded handler for every invoke channel of the contract', () => {
    const channels = ipc.handlers(() => true).map(([channel]) => channel);
    expect(channels.sort()).toEqual(
      [IPC_CHANNELS.getStatus, IPC_CHANNELS.listHistory, IPC_CHANNELS.liveStart, IPC_CHANNELS.liveStop, IPC_CHANNELS.revealOutbound].sort(),
    );
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
    expect(invoke(IPC_CHANNELS.getStatus, eventFrom(APP_URL))).toMatchObject({ url: bench.url, tokenCount: 1, applicationCount: 2 });
    const history = (await invoke(IPC_CHANNELS.listHistory, eventFrom(APP_URL), { limit: 5 })) as { method: string; path: string; status: number }[];
    expect(history[0]).toMatchObject({ method: 'POST', path: '/tokens', status: 201 });
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
    await expect(invoke(IPC_CHANNELS.revealOutbound, eventFrom(APP_URL), { id: entry.id })).resolves.toEqual({
      detokenized_body: '{"pan":"4242424242424242"}',
    });
    expect(() => invoke(IPC_CHANNELS.revealOutbound, eventFrom(APP_URL), {})).toThrow(/invalid payload \(id: /);
    await expect(invoke(IPC_CHANNELS.revealOutbound, eventFrom(APP_URL), { id: 'no-such-entry' })).rejects.toThrow('No such request in the history');
  });

  it('validates payloads once, at the handler, and says what is wrong', () => {
    expect(() => invoke(IPC_CHANNELS.listHistory, eventFrom(APP_URL), { limit: 'lots' })).toThrow(/invalid payload \(limit: /);
    expect(() => invoke(IPC_CHANNELS.listHistory, eventFrom(APP_URL), { limit: 10_000 })).toThrow(/invalid payload/);
    expect(() => invoke(IPC_CHANNELS.getStatus, eventFrom(APP_URL), { sneaky: true })).toThrow(/invalid payload/);
  });

  it('pushes live history to a subscribed window, and stops when the window goes away', async () => {
    const window = new FakeWindow();
    const connected = invoke(IPC_CHANNELS.liveStart, eventFrom(APP_URL, window));
    expect(connected).toMatchObject({ type: 'connected', status: { tokenCount: 0 } });

    await createToken('canary-plaintext-4242');
    await vi.waitFor(() => expect(window.received.length).toBeGreaterThan(0));
    const [{ channel, event }] = window.received;
    expect(channel).toBe(IPC_CHANNELS.live);
    expect(event).toMatchObject({ type: 'update', status: { tokenCount: 1 }, entries: [{ method: 'POST', path: '/tokens', status: 201 }] });
    expect(JSON.stringify(event)).not.toContain('canary-plaintext-4242');

    window.destroy();
    expect(liveSubscriptions()).toBe(0);
  });

  it('keeps one subscription per window across reloads, and ends them on stop and on close', async () => {
    const window = new FakeWindow();
    invoke(IPC_CHANNELS.liveStart, eventFrom(APP_URL, window));
    invoke(IPC_CHANNELS.liveStart, eventFrom(APP_URL, window));
    await createToken('once');
    await vi.waitFor(() => expect(window.received.length).toBeGreaterThan(0));
    expect(window.received).toHaveLength(1);
    expect(window.listenerCount('destroyed')).toBe(1);
    invoke(IPC_CHANNELS.liveStop, eventFrom(APP_URL, window));
    expect(liveSubscriptions()).toBe(0);

    invoke(IPC_CHANNELS.liveStart, eventFrom(APP_URL));
    invoke(IPC_CHANNELS.liveStart, eventFrom(APP_URL));
    expect(liveSubscriptions()).toBe(1);
    ipc.close();
    expect(liveSubscriptions()).toBe(0);
  });
});
