import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LAUNCH_PATHS } from '../../shared/workbench/transport';
import { callApi, startTestEngine, type TestEngine } from '../support/test-engine';

// `npm start` opens the browser with a launch link, never the session: a browser's command line is readable by every
// local user (/proc/*/cmdline). The page trades the link's one-time code for the session over a POST.
let bench: TestEngine;
beforeEach(async () => {
  bench = await startTestEngine({ inMemory: true, workbenchRoutes: true });
});
afterEach(async () => {
  vi.useRealTimers();
  await bench.stop();
});

const codeOf = (url: string) => new URL(url).hash.slice('#launch='.length);
const exchange = (code: unknown) => callApi(bench.url, 'POST', LAUNCH_PATHS.session, { body: { code } });

describe('launch links', () => {
  it('carry a one-time code in the fragment, never the session, and the code buys the session once', async () => {
    const { session } = bench.engine.browserWorkbench!;
    const url = bench.engine.browserWorkbench!.launchUrl();
    expect(url).toMatch(new RegExp(`^${bench.url}/ui/#launch=[A-Za-z0-9_-]{43}$`));
    expect(url).not.toContain(session);

    const traded = await exchange(codeOf(url));
    expect(traded.status).toBe(200);
    expect(traded.body).toEqual({ session });
    expect(traded.headers['cache-control']).toBe('no-store');
    expect((await bench.workbench('getStatus', {}, { session: traded.body.session })).status).toBe(200);

    const again = await exchange(codeOf(url));
    expect(again.status).toBe(401);
    expect(again.headers['content-type']).toContain('application/problem+json');
    expect(again.body.detail).toMatch(/already used.*works once.*npm start/);
    expect(again.text).not.toContain(session);
  });

  it('each link has a code of its own', async () => {
    const [first, second] = [bench.engine.browserWorkbench!.launchUrl(), bench.engine.browserWorkbench!.launchUrl()];
    expect(codeOf(first)).not.toBe(codeOf(second));
    expect((await exchange(codeOf(second))).status).toBe(200);
    expect((await exchange(codeOf(first))).status).toBe(200);
  });

  it('expire two minutes after they were made, used or not', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const url = bench.engine.browserWorkbench!.launchUrl();
    vi.setSystemTime(Date.now() + 119_000);
    const inTime = bench.engine.browserWorkbench!.launchUrl();
    expect((await exchange(codeOf(inTime))).status).toBe(200);
    vi.setSystemTime(Date.now() + 2_000);
    const late = await exchange(codeOf(url));
    expect(late.status).toBe(401);
    expect(late.body.detail).toMatch(/expired.*2 minutes.*npm start/);
  });

  it('refuse a code this run never made, and a request that is not a code', async () => {
    const unknown = await exchange('A'.repeat(43));
    expect(unknown.status).toBe(401);
    expect(unknown.body.detail).toMatch(/not from the running Tokenbench.*npm start/);

    for (const body of [{}, { code: 7 }, { code: 'x', more: true }]) {
      const refused = await callApi(bench.url, 'POST', LAUNCH_PATHS.session, { body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.errors).toBeDefined();
    }
    const get = await callApi(bench.url, 'GET', LAUNCH_PATHS.session);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('are made over HTTP for the holder of the session alone (a second `npm start` asks the running one)', async () => {
    const refused = await callApi(bench.url, 'POST', LAUNCH_PATHS.link);
    expect(refused.status).toBe(401);

    const made = await callApi(bench.url, 'POST', LAUNCH_PATHS.link, { headers: { 'X-Tokenbench-Session': bench.engine.browserWorkbench!.session } });
    expect(made.status).toBe(200);
    expect(made.body).toEqual({ url: expect.stringMatching(new RegExp(`^${bench.url}/ui/#launch=`)), expires_in_seconds: 120 });
    expect((await exchange(codeOf(made.body.url))).status).toBe(200);
  });

  it('keep the Origin guard in front, and leave no trace of code or session in the history', async () => {
    const code = codeOf(bench.engine.browserWorkbench!.launchUrl());
    const foreign = await callApi(bench.url, 'POST', LAUNCH_PATHS.session, { body: { code }, headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect((await exchange(code)).status).toBe(200);

    const history = await bench.workbench('listHistory', { limit: 50 });
    expect(history.body.map((entry: { path: string }) => entry.path)).toEqual([LAUNCH_PATHS.session]);
    expect(history.text).not.toContain(code);
    expect(history.text).not.toContain(bench.engine.browserWorkbench!.session);
  });
});
