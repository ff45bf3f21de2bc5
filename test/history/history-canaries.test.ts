import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_HEADER, SESSION_QUERY, WORKBENCH_PATHS } from '../../shared/workbench/transport';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * What history must never keep, each case with its own canary: secrets a refused request carried, and plaintext a
 * request of an unexpected shape carried. Checked in what history answers and in the bytes of its files.
 */
const PAGE = 'http://localhost:3000';

let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ allowedOrigins: [PAGE] });
});
afterAll(() => t.stop());

let serial = 0;
/** A value that appears nowhere else, shaped like what it stands for. */
const canary = (kind: string) => `${kind}-canary-${++serial}-${Math.random().toString(36).slice(2)}`;

/** Asserts that history holds an entry for the trace id, and that neither it nor any history file holds `secret`. */
async function expectKeptWithout(traceId: string, secret: string): Promise<void> {
  await t.engine.history.flush();
  const entry = (await t.engine.history.list(200)).find((e) => e.trace_id === traceId);
  expect(entry, `an entry for ${traceId}`).toBeDefined();
  expect(JSON.stringify(entry)).not.toContain(secret);
  for (const file of readdirSync(t.dataDir!).filter((f) => f.startsWith('history.sqlite'))) {
    expect(readFileSync(join(t.dataDir!, file)).includes(Buffer.from(secret)), `${secret} in ${file}`).toBe(false);
  }
}

describe('the workbench session of a refused request', () => {
  it.each([
    ['a foreign Origin', { origin: 'https://evil.example' }],
    ['a page allowed to call the API, which the workbench does not answer', { origin: PAGE }],
  ])('is cut from the live stream query (%s)', async (_case, headers) => {
    // The name as the workbench reads it, whether written plainly or percent-encoded.
    for (const name of [SESSION_QUERY, encodeURIComponent(SESSION_QUERY).replace('i', '%69')]) {
      const session = canary('session');
      const traceId = canary('trace');
      const res = await t.call('GET', `${WORKBENCH_PATHS.live}?x=1&${name}=${session}`, { headers: { ...headers, 'BT-TRACE-ID': traceId } });
      expect([403, 404]).toContain(res.status);
      await expectKeptWithout(traceId, session);
    }
  });

  it.each([
    ['a foreign Origin', { origin: 'https://evil.example' }],
    ['a page allowed to call the API', { origin: PAGE }],
  ])('is cut from the session header (%s)', async (_case, headers) => {
    const session = canary('session');
    const traceId = canary('trace');
    const res = await t.call('GET', WORKBENCH_PATHS.status, { headers: { ...headers, [SESSION_HEADER]: session, 'BT-TRACE-ID': traceId } });
    expect([403, 404]).toContain(res.status);
    await expectKeptWithout(traceId, session);
  });
});
