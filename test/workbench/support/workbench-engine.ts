import { afterEach, beforeEach } from 'vitest';
import type { StartOptions } from '../../../electron/engine';
import { startTestEngine, type TestEngine } from '../../support/test-engine';

/** A test card number: the canary the workbench's tests look for where plaintext must not be. */
export const PAN = '4242424242424242';

/**
 * A real engine (vault in memory) whose workbench methods answer over HTTP, as the browser's do, so requests and
 * replies pass the method table's validation; the page it serves is one file.
 */
export function startWorkbenchEngine(options: StartOptions = {}): Promise<TestEngine> {
  return startTestEngine({ inMemory: true, echoPort: 0, workbenchRoutes: true, ...options });
}

/** A fresh engine for each test of the file: `bench`, and `backend`, the id of its bootstrap private application. */
export function engineForEachTest(): { bench: TestEngine; backend: string } {
  const current = {} as { bench: TestEngine; backend: string };
  beforeEach(async () => {
    current.bench = await startWorkbenchEngine();
    current.backend = current.bench.engine.bootstrapKeys!.private.application_id;
  });
  afterEach(() => current.bench.stop());
  return current;
}

/** A workbench call over HTTP, as the browser makes it: its reply, or an error carrying the refusal's status and detail. */
export async function workbenchReply(t: TestEngine, name: string, request: unknown = {}): Promise<any> {
  const response = await t.workbench(name, request);
  if (response.status !== 200) throw Object.assign(new Error(response.body?.detail ?? response.text), { status: response.status, detail: response.body?.detail });
  return response.body;
}
