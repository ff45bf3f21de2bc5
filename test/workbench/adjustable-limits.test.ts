import { afterEach, describe, expect, it } from 'vitest';
import { callMethod, problemOf } from '../../electron/engine';
import { engineSettingsSchema } from '../../shared/workbench/settings-contract';
import { startServer, type TestServer } from '../proxy/support/loopback';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

/** Settings' proxy limits: applied to the next request without a restart, kept in the vault, outranked by a start flag. */
let bench: TestEngine | undefined;
let destination: TestServer | undefined;
afterEach(async () => {
  await bench?.stop();
  await destination?.close();
  bench = destination = undefined;
});

const change = async (t: TestEngine, request: unknown) => {
  try {
    return { ok: true as const, settings: engineSettingsSchema.parse(await callMethod(t.engine.workbench, 'changeLimits', request)) };
  } catch (error) {
    return { ok: false as const, problem: problemOf(error) };
  }
};

async function echoing(): Promise<TestServer> {
  destination = await startServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  return destination;
}

const proxy = (t: TestEngine, target: string, body: unknown) =>
  t.call('POST', '/proxy', { key: t.privateKey, body, headers: { 'BT-PROXY-URL': target } });

describe('the proxy limits in Settings', () => {
  it('hold the next request to a new expression limit, and go back to the default on null', async () => {
    bench = await startTestEngine({ inMemory: true });
    const { url } = await echoing();
    const token = (await bench.call('POST', '/tokens', { key: bench.privateKey, body: { type: 'token', data: 'x' } })).body.id;
    const three = { a: `{{ ${token} }}`, b: `{{ ${token} }}`, c: `{{ ${token} }}` };
    expect((await proxy(bench, url, three)).status).toBe(200);

    const changed = await change(bench, { maxExpressions: 2 });
    expect(changed.ok && changed.settings.limits.maxExpressions).toEqual({ value: 2, default: 20, stored: 2, pinnedBy: null });
    const refused = await proxy(bench, url, three);
    expect(refused.status).toBe(400);
    expect(refused.body.proxy_error.detail).toBe('The body holds 3 expressions; at most 2 are detokenized per request');

    const reset = await change(bench, { maxExpressions: null });
    expect(reset.ok && reset.settings.limits.maxExpressions).toEqual({ value: 20, default: 20, stored: null, pinnedBy: null });
    expect((await proxy(bench, url, three)).status).toBe(200);
  });

  it('apply a body limit and a destination timeout to the next request', async () => {
    bench = await startTestEngine({ inMemory: true });
    destination = await startServer(() => undefined); // never answers
    await change(bench, { maxBodyBytes: 64, proxyTimeoutMs: 300 });
    const large = await proxy(bench, destination.url, { pad: 'x'.repeat(100) });
    expect(large.status).toBe(413);
    const started = performance.now();
    const slow = await proxy(bench, destination.url, {});
    expect(slow.status).toBe(408);
    expect(slow.body.proxy_error.detail).toBe('destination did not answer within 300 ms');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('refuse private destinations from the next request on, kept-alive connections included', async () => {
    bench = await startTestEngine({ inMemory: true });
    const { url } = await echoing();
    expect((await proxy(bench, url, {})).status).toBe(200);
    await change(bench, { denyPrivateDestinations: true });
    const refused = await proxy(bench, url, {});
    expect(refused.status).toBe(400);
    expect(refused.body.proxy_error.detail).toContain('private destinations are denied by the settings');
    await change(bench, { denyPrivateDestinations: false });
    expect((await proxy(bench, url, {})).status).toBe(200);
  });

  it('are kept in the vault across restarts, and a flag given at start wins and cannot be changed here', async () => {
    const dataDir = tempDir();
    bench = await startTestEngine({ dataDir });
    await change(bench, { maxExpressions: 3, proxyTimeoutMs: 5000 });
    await bench.stop();

    bench = await startTestEngine({ dataDir });
    expect(bench.engine.config).toMatchObject({ maxExpressions: 3, proxyTimeoutMs: 5000 });
    await bench.stop();

    bench = await startTestEngine({ dataDir, maxExpressions: 7 });
    const settings = engineSettingsSchema.parse(await bench.engine.workbench.getSettings({}));
    expect(settings.limits.maxExpressions).toEqual({ value: 7, default: 20, stored: 3, pinnedBy: '--max-expressions 7' });
    expect(settings.limits.proxyTimeoutMs).toMatchObject({ value: 5000, pinnedBy: null });
    const pinned = await change(bench, { maxExpressions: 9, proxyTimeoutMs: 6000 });
    expect(pinned).toMatchObject({
      ok: false,
      problem: { status: 409, detail: '--max-expressions 7 was given at start and wins over Settings: start the engine without it to change this here' },
    });
    // Nothing of the refused change was applied.
    expect(bench.engine.config.proxyTimeoutMs).toBe(5000);
  });

  it('refuse values out of range, naming the field', async () => {
    bench = await startTestEngine({ inMemory: true });
    expect(await change(bench, { maxBodyBytes: 0 })).toMatchObject({ ok: false, problem: { status: 400, errors: { maxBodyBytes: [expect.any(String)] } } });
    expect(await change(bench, { proxyTimeoutMs: 'soon' })).toMatchObject({ ok: false, problem: { status: 400 } });
    expect(await change(bench, { somethingElse: 1 })).toMatchObject({ ok: false, problem: { status: 400 } });
  });
});
