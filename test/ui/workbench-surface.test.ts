// The browser workbench's whole surface, row by row from the method table: a method added to the table is covered
// here without a line changing. Every method refuses a caller without this run's session, and a caller from a foreign
// Host or Origin even with it, before doing anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCall, METHOD_NAMES } from '../../shared/workbench/methods';
import { httpPath, PAGE_HEADER, SESSION_HEADER, SESSION_QUERY } from '../../shared/workbench/transport';
import { callApi, startTestEngine, type TestEngine } from '../support/test-engine';


let bench: TestEngine;
let session: string;
beforeAll(async () => {
  bench = await startTestEngine({ inMemory: true, workbenchRoutes: true });
  session = bench.engine.browserWorkbench!.session;
});
afterAll(async () => {
  await bench.stop();
});

/** One request to a method as its transport takes it: a call is a POST with a JSON body, a stream a GET. */
function ask(name: (typeof METHOD_NAMES)[number], { withSession, headers = {} }: { withSession: boolean; headers?: Record<string, string> }) {
  if (isCall(name)) {
    return callApi(bench.url, 'POST', httpPath(name), { body: {}, headers: withSession ? { ...headers, [SESSION_HEADER]: session } : headers });
  }
  const query = withSession ? `?${SESSION_QUERY}=${session}` : '';
  return callApi(bench.url, 'GET', `${httpPath(name)}${query}`, { headers: { ...headers, accept: 'application/json' } });
}

const refusals: { why: string; withSession: boolean; headers: Record<string, string>; status: number }[] = [
  { why: 'without the session', withSession: false, headers: {}, status: 401 },
  { why: 'from a foreign Origin, even with the session', withSession: true, headers: { origin: 'https://evil.example' }, status: 403 },
  { why: 'under a foreign Host (DNS rebinding), even with the session', withSession: true, headers: { host: 'evil.example' }, status: 403 },
  { why: 'under a look-alike Host, even with the session', withSession: true, headers: { host: 'localhost.evil.example' }, status: 403 },
];

describe.each(METHOD_NAMES)('/_workbench/%s', (name) => {
  it.each(refusals)('refuses $why with $status, as problem details', async ({ withSession, headers, status }) => {
    const refused = await ask(name, { withSession, headers });
    expect(refused.status).toBe(status);
    expect(refused.headers['content-type']).toContain('application/problem+json');
  });

  // A page the workbench does not have is refused before the call runs: the history never names a made-up page.
  it.runIf(isCall(name))('refuses a call naming a page not in the list with 400, as problem details naming the page', async () => {
    const refused = await ask(name, { withSession: true, headers: { [PAGE_HEADER]: 'backend' } });
    expect(refused.status).toBe(400);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.body.errors).toHaveProperty('page');
  });
});

it('covers every row of the method table, streams included', () => {
  expect(METHOD_NAMES.length).toBeGreaterThan(30);
  expect(METHOD_NAMES.some((name) => !isCall(name))).toBe(true);
});
