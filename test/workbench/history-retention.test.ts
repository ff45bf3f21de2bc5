import { afterEach, describe, expect, it } from 'vitest';
import { callMethod, problemOf } from '../../electron/engine';
import type { SentLiveEvent } from '../../shared/workbench/live-contract';
import { engineSettingsSchema } from '../../shared/workbench/settings-contract';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/** Settings' history retention and "Clear history": applied by the engine's history at once, kept in the vault. */
let bench: TestEngine | undefined;
afterEach(async () => {
  await bench?.stop();
  bench = undefined;
});

const change = async (t: TestEngine, request: unknown) => {
  try {
    return { ok: true as const, settings: engineSettingsSchema.parse(await callMethod(t.engine.workbench, 'changeRetention', request)) };
  } catch (error) {
    return { ok: false as const, problem: problemOf(error) };
  }
};

async function requests(t: TestEngine, paths: string[]) {
  for (const path of paths) await t.call('GET', path);
}
const keptPaths = async (t: TestEngine) => (await t.engine.history.list(100)).map((entry) => entry.path);

describe('the history retention in Settings', () => {
  it('trims to a smaller number of entries at once and keeps to it, and goes back to 10,000 on null', async () => {
    bench = await startTestEngine({ inMemory: true });
    await requests(bench, ['/1', '/2', '/3', '/4', '/5']);
    const changed = await change(bench, { historyLimit: 3 });
    expect(changed.ok && changed.settings.retention.historyLimit).toEqual({ value: 3, default: 10_000, stored: 3, pinnedBy: null });
    // The change itself is the newest of the three kept.
    expect(await keptPaths(bench)).toEqual(['/settings/retention', '/5', '/4']);
    await requests(bench, ['/6']);
    expect(await keptPaths(bench)).toEqual(['/6', '/settings/retention', '/5']);

    const reset = await change(bench, { historyLimit: null });
    expect(reset.ok && reset.settings.retention.historyLimit).toEqual({ value: 10_000, default: 10_000, stored: null, pinnedBy: null });
    await requests(bench, ['/7', '/8']);
    expect(await keptPaths(bench)).toEqual(['/8', '/7', '/settings/retention', '/6', '/settings/retention', '/5']);
  });

  it('is kept in the vault across restarts, and a flag given at start wins and cannot be changed here', async () => {
    const dataDir = tempDir();
    bench = await startTestEngine({ dataDir });
    await change(bench, { historyLimit: 2, historyMaxAgeDays: 30 });
    await bench.stop();

    bench = await startTestEngine({ dataDir });
    expect(bench.engine.config).toMatchObject({ historyLimit: 2, historyMaxAgeDays: 30 });
    await requests(bench, ['/a', '/b', '/c']);
    expect(await keptPaths(bench)).toEqual(['/c', '/b']);
    await bench.stop();

    bench = await startTestEngine({ dataDir, historyLimit: 4 });
    const settings = engineSettingsSchema.parse(await bench.engine.workbench.getSettings({}));
    expect(settings.retention.historyLimit).toEqual({ value: 4, default: 10_000, stored: 2, pinnedBy: '--history-limit 4' });
    expect(settings.retention.historyMaxAgeDays).toEqual({ value: 30, default: 0, stored: 30, pinnedBy: null });
    const pinned = await change(bench, { historyLimit: 9, historyMaxAgeDays: 1 });
    expect(pinned).toMatchObject({
      ok: false,
      problem: { status: 409, detail: '--history-limit 4 was given at start and wins over Settings: start the engine without it to change this here' },
    });
    // Nothing of the refused change was applied.
    expect(bench.engine.config.historyMaxAgeDays).toBe(30);
  });

  it('refuses values out of range, naming the field, and changes nothing', async () => {
    bench = await startTestEngine({ inMemory: true });
    await requests(bench, ['/1', '/2']);
    expect(await change(bench, { historyLimit: 0 })).toMatchObject({ ok: false, problem: { status: 400, errors: { historyLimit: [expect.any(String)] } } });
    expect(await change(bench, { historyLimit: 1, historyMaxAgeDays: -1 })).toMatchObject({ ok: false, problem: { status: 400, errors: { historyMaxAgeDays: [expect.any(String)] } } });
    expect(await change(bench, { historyLimit: 1, other: 1 })).toMatchObject({ ok: false, problem: { status: 400 } });
    expect(bench.engine.config.historyLimit).toBe(10_000);
    expect(await keptPaths(bench)).toEqual(['/2', '/1']);
  });
});

describe('clearing the history', () => {
  it('removes every entry, queued ones too, tells the live view to read it again, and goes on recording', async () => {
    bench = await startTestEngine({ inMemory: true });
    const heard: SentLiveEvent[] = [];
    const leave = bench.engine.workbench.live((event) => heard.push(event));
    try {
      await requests(bench, ['/1', '/2', '/3']);
      // Recorded, not yet written: the clear takes it too.
      bench.engine.history.record({ kind: 'api', method: 'GET', path: '/queued', status: 404, duration_ms: 1, application_id: null, trace_id: null, request_headers: [] });
      expect(await callMethod(bench.engine.workbench, 'clearHistory', {})).toEqual({ cleared: 4 });
      // Only the entry saying the history was cleared.
      expect(await keptPaths(bench)).toEqual(['/history']);
      await expect.poll(() => heard.some((event) => event.type === 'update' && event.historyReset)).toBe(true);
      const reset = heard.find((event) => event.type === 'update' && event.historyReset);
      // The batch that says "read it again" carries none of the entries that are gone (only, at most, the clear's own).
      expect(reset?.type === 'update' && reset.entries.map((entry) => entry.path).filter((path) => path !== '/history')).toEqual([]);

      await requests(bench, ['/after']);
      expect(await keptPaths(bench)).toEqual(['/after', '/history']);
    } finally {
      leave();
    }
  });
});
