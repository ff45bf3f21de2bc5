import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { historyEntrySchema, type HistoryEntry } from '../../shared/workbench/history-contract';
import { curlOf } from '../../renderer/src/pages/history/copy-as-curl';
import { rawRequest } from '../support/raw-request';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * History's Copy as cURL of a request whose target was not a plain path: the command sends it to the engine's own
 * origin, with the target's bytes, never to the host a `//host/…` or `ftp://host/…` target names (replay's twin is in
 * history-replay-browser.e2e.ts).
 */
let t: TestEngine;
beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
});
afterAll(() => t.stop());

/** Each target sent raw, and the target the engine then received again: escaped where a URL cannot hold it. */
const TARGETS: [sent: string, again: string][] = [
  ['//evil.example/x', '//evil.example/x'],
  ['ftp://evil.example/y?z=1', '/ftp://evil.example/y?z=1'],
  ['/a\\b', '/a%5Cb'],
  ['/p?q=1#f', '/p?q=1%23f'],
];

/** History's entries of a trace, newest first. */
async function entriesOf(trace: string): Promise<HistoryEntry[]> {
  await t.engine.history.flush();
  return (await t.engine.history.list(50)).filter((entry) => entry.trace_id === trace).map((entry) => historyEntrySchema.parse(entry));
}

it.each(TARGETS)('copies %s as a cURL command that reaches the engine itself', async (sent, again) => {
  const trace = `target-${Math.random().toString(36).slice(2)}`;
  await rawRequest(t.engine.port, `GET ${sent} HTTP/1.1\r\nHost: 127.0.0.1:${t.engine.port}\r\nBT-TRACE-ID: ${trace}\r\n\r\n`);
  const { command } = curlOf((await entriesOf(trace))[0], t.url, 'BT');
  expect(command).toContain(`--url '${t.url}${again}'`);
  // The command carries the request's trace id: its run is the trace's second entry.
  await promisify(execFile)('sh', ['-c', `${command.trimEnd()} --silent`], { env: { ...process.env, BT_API_KEY: t.privateKey } });
  const [run, original] = await entriesOf(trace);
  expect(original.path).toBe(sent);
  expect(run.path).toBe(again);
});
