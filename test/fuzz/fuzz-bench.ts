import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { callApi, startTestEngine, type ApiResponse, type TestEngine } from '../support/test-engine';

/** How long a probe may take while a case runs before the engine counts as stalled (a shared 2-core machine). */
const PROBE_TIMEOUT_MS = 5_000;
/** Small, so the proxy property reaches past the limit cheaply. */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * The engine the fuzz properties run against: an on-disk vault with its history, the echo destination, the browser
 * workbench's routes, every log line kept, and a canary token whose plaintext no answer, history entry or log line
 * may carry unless the request asked for that token's plaintext.
 */
export interface FuzzBench {
  t: TestEngine;
  /** A private application with every token permission under `mask`: nothing it reads is plaintext. */
  maskKey: string;
  /** A private application with every token permission under `reveal`: for the proxy and detokenize. */
  revealKey: string;
  canary: { id: string; data: string };
  /** The engine's request body limit. */
  maxBodyBytes: number;
  logs: string[];
  /** Runs one case beside a probe request, which must be answered while the case runs. */
  beside<T>(send: () => Promise<T>): Promise<T>;
  /** The canary's plaintext, if `text` holds it. */
  leaks(text: string): boolean;
  stop(): Promise<void>;
}

async function application(t: TestEngine, name: string, transform: 'mask' | 'reveal'): Promise<string> {
  const permissions = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];
  const app = await t.call('POST', '/applications', {
    key: t.managementKey,
    body: { name, type: 'private', rules: [{ description: 'all', priority: 1, container: '/', transform, permissions }] },
  });
  if (app.status !== 201) throw new Error(`could not create ${name}: ${app.text}`);
  return app.body.key;
}

export async function startFuzzBench(): Promise<FuzzBench> {
  const logs: string[] = [];
  const t = await startTestEngine({ echoPort: 0, proxyTimeoutMs: 2000, maxBodyBytes: MAX_BODY_BYTES, workbenchRoutes: true, log: (line) => logs.push(line) });
  const maskKey = await application(t, 'fuzz (masked)', 'mask');
  const revealKey = await application(t, 'fuzz (plaintext)', 'reveal');
  const data = `canary${randomBytes(12).toString('hex')}`;
  const created = await t.call('POST', '/tokens', { key: revealKey, body: { type: 'token', data, mask: '{{ data | reveal_last: 4 }}' } });
  if (created.status !== 201) throw new Error(`could not create the canary: ${created.text}`);
  const canary = { id: created.body.id as string, data };

  async function probe(): Promise<void> {
    const res = await request(`${t.url}/tokens/${canary.id}`, { headers: { 'BT-API-KEY': maskKey }, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`the probe got ${res.statusCode}: ${text}`);
  }

  return {
    t,
    maskKey,
    revealKey,
    canary,
    logs,
    async beside(send) {
      const [result] = await Promise.all([send(), probe()]);
      return result;
    },
    leaks: (text) => text.includes(data),
    maxBodyBytes: MAX_BODY_BYTES,
    stop: () => t.stop(),
  };
}

/** Calls the API with a key and a raw or JSON body; a body that is a string goes as it is. */
export function send(bench: FuzzBench, method: string, path: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
  const raw = typeof body === 'string' ? body : undefined;
  return bench.beside(() =>
    callApi(bench.t.url, method, path, {
      key,
      headers: raw === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(raw === undefined ? { body } : { raw }),
    }),
  );
}

/** Every byte history keeps on disk, after a flush: the canary must not be there. */
export async function historyBytes(bench: FuzzBench): Promise<Buffer> {
  await bench.t.engine.history.flush();
  const dir = bench.t.dataDir!;
  return Buffer.concat(readdirSync(dir).filter((file) => file.startsWith('history')).map((file) => readFileSync(join(dir, file))));
}
