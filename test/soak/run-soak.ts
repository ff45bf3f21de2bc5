// `npm run soak -- --minutes N --connections C`: the built-in CLI (`tokenbench serve`, its own process, on loopback)
// under a steady mix of token writes and reads, searches, transactions and proxy calls through the echo destination,
// for N minutes. Every 10 s: throughput, errors, p50/p99, the service's RSS and open file descriptors; at the end, the
// RSS trend after warm-up, and every acknowledged write read back. Exits 1 on any error or any write not read back.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { freePort } from '../support/free-port';
import { startServe } from '../support/serve-process';
import { tempDir } from '../support/test-engine';

const { values: args } = parseArgs({ options: { minutes: { type: 'string', default: '2' }, connections: { type: 'string', default: '8' } } });
const MINUTES = Number(args.minutes);
const CONNECTIONS = Number(args.connections);
const INTERVAL_MS = 10_000;
/** SQLite's page cache and V8's heap fill at first: the trend is taken after this share of the run. */
const WARM_UP_SHARE = 0.3;
const KEY = 'key_test_soak_0123456789abcdef0123456789';

type Op = 'create' | 'read' | 'search' | 'transaction' | 'proxy';
/** The mix, by weight. */
const MIX: [Op, number][] = [['create', 30], ['read', 25], ['search', 15], ['transaction', 10], ['proxy', 20]];

/**
 * The service's resident memory from /proc: all of it, and its anonymous part (V8's heaps, SQLite's page cache, buffers).
 * The rest is the vault file mapped into memory (the engine sets mmap_size), which grows with the vault by design and
 * which the kernel may drop at will: a leak shows in the anonymous part.
 */
function memory(pid: number): { rss: number; anon: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon') };
}
const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
}

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

function pickOp(): Op {
  let roll = Math.random() * MIX.reduce((s, [, w]) => s + w, 0);
  for (const [op, weight] of MIX) if ((roll -= weight) < 0) return op;
  return 'read';
}

async function soak(): Promise<number> {
  const dataDir = tempDir('tokenbench-soak-');
  const seed = join(dataDir, 'seed.json');
  const permissions = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];
  writeFileSync(seed, JSON.stringify({ applications: [{ name: 'soak', type: 'private', key: KEY, rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions }] }] }));
  // `--echo-port 0` turns the echo destination off: give it a port that was free a moment ago.
  const serve = await startServe(['--data-dir', dataDir, '--port', '0', '--echo-port', String(await freePort()), '--seed', seed]);
  const pid = serve.child.pid!;
  // The report's lines may arrive after the first one, which is what startServe waits for.
  while (!/Echo destination at \S+\n/.test(serve.output())) await new Promise((resolve) => setTimeout(resolve, 20));
  const echoUrl = /Echo destination at (\S+)/.exec(serve.output())![1];
  const agent = new Agent({ connections: CONNECTIONS });
  const acknowledged = new Map<string, string>();
  const ids: string[] = [];
  let latencies: number[] = [];
  let errors = 0;
  let total = 0;
  const errorSamples: string[] = [];

  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await request(serve.url + path, {
      method: method as 'GET',
      dispatcher: agent,
      headers: { 'BT-API-KEY': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, json: text ? JSON.parse(text) : undefined, text };
  }

  const data = () => ({ number: `4${Math.floor(Math.random() * 1e15).toString().padStart(15, '0')}`, note: `soak ${Math.random().toString(36).slice(2)}` });
  const someId = () => ids[Math.floor(Math.random() * ids.length)];

  async function one(op: Op): Promise<boolean> {
    if (op === 'create' || ids.length === 0) {
      const sent = data();
      const res = await call('POST', '/tokens', { type: 'token', data: sent, metadata: { run: 'soak' }, search_indexes: ['{{ data.note }}'] });
      if (res.status !== 201) return fail(op, res);
      acknowledged.set(res.json.id, JSON.stringify(sent));
      ids.push(res.json.id);
      return true;
    }
    if (op === 'read') {
      const id = someId();
      const res = await call('GET', `/tokens/${id}`);
      return res.status === 200 && JSON.stringify(res.json.data) === acknowledged.get(id) ? true : fail(op, res);
    }
    if (op === 'search') {
      const res = await call('POST', '/v2/tokens/search', { query: 'metadata.run:soak', size: 20 });
      return res.status === 200 ? true : fail(op, res);
    }
    if (op === 'transaction') {
      const opened = await call('POST', '/transactions');
      if (opened.status !== 201) return fail(op, opened);
      const staged: [string, string][] = [];
      for (let i = 0; i < 2; i += 1) {
        const sent = data();
        const res = await call('POST', '/tokens', { type: 'token', data: sent, metadata: { run: 'soak' } }, { 'BT-TRANSACTION-ID': opened.json.id });
        if (res.status !== 201) return fail(op, res);
        staged.push([res.json.id, JSON.stringify(sent)]);
      }
      const committed = await call('POST', `/transactions/${opened.json.id}/commit`);
      if (committed.status !== 200) return fail(op, committed);
      for (const [id, sent] of staged) {
        acknowledged.set(id, sent);
        ids.push(id);
      }
      return true;
    }
    const id = someId();
    const res = await call('POST', '/proxy/v1/charges', { card: `{{ ${id} | json: '$.number' }}` }, { 'BT-PROXY-URL': echoUrl });
    return res.status === 200 && JSON.parse(res.json.body).card === JSON.parse(acknowledged.get(id)!).number ? true : fail(op, res);
  }

  function fail(op: Op, res: { status: number; text: string }): false {
    errors += 1;
    if (errorSamples.length < 10) errorSamples.push(`${op}: ${res.status} ${res.text.slice(0, 200)}`);
    return false;
  }

  const started = Date.now();
  const deadline = started + MINUTES * 60_000;
  const samples: { seconds: number; rss: number; anon: number; fds: number }[] = [];
  let windowStart = started;
  let windowCount = 0;
  let windowErrors = 0;
  console.log(`soak: ${MINUTES} min, ${CONNECTIONS} connections, service pid ${pid} at ${serve.url}; mix ${MIX.map(([op, w]) => `${op} ${w}%`).join(', ')}`);
  console.log('   t (s)   req/s  errors  p50 ms  p99 ms  RSS MB  anon MB  fds');
  const report = setInterval(() => {
    const now = Date.now();
    const sorted = latencies.sort((a, b) => a - b);
    const sample = { seconds: (now - started) / 1000, ...memory(pid), fds: openFds(pid) };
    samples.push(sample);
    const line = [sample.seconds.toFixed(0).padStart(6), ((windowCount * 1000) / (now - windowStart)).toFixed(0).padStart(7), String(errors - windowErrors).padStart(7),
      percentile(sorted, 50).toFixed(1).padStart(7), percentile(sorted, 99).toFixed(1).padStart(7), mb(sample.rss).padStart(7), mb(sample.anon).padStart(8), String(sample.fds).padStart(5)];
    console.log(line.join(' '));
    latencies = [];
    windowStart = now;
    windowCount = 0;
    windowErrors = errors;
  }, INTERVAL_MS);

  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < deadline) {
        const op = pickOp();
        const at = performance.now();
        try {
          await one(op);
        } catch (error) {
          fail(op, { status: 0, text: String(error) });
        }
        latencies.push(performance.now() - at);
        windowCount += 1;
        total += 1;
      }
    }),
  );
  clearInterval(report);
  const seconds = (Date.now() - started) / 1000;

  // Every acknowledged write, read back as it was sent.
  const all = [...acknowledged.keys()];
  let missing = 0;
  for (let at = 0; at < all.length; at += 100) {
    const query = all.slice(at, at + 100).map((id) => `id=${id}`).join('&');
    const res = await call('GET', `/tokens?size=100&${query}`);
    const found = new Map<string, unknown>((res.json.data as { id: string; data: unknown }[]).map((t) => [t.id, t.data]));
    for (const id of all.slice(at, at + 100)) if (JSON.stringify(found.get(id)) !== acknowledged.get(id)) missing += 1;
  }

  const afterWarmUp = samples.filter((s) => s.seconds >= seconds * WARM_UP_SHARE);
  const trendOf = (of: (s: (typeof samples)[number]) => number) => (afterWarmUp.length >= 2 ? slope(afterWarmUp.map((s) => [s.seconds / 60, of(s)])) : NaN);
  const trend = trendOf((s) => s.rss / 2 ** 20);
  const anonTrend = trendOf((s) => s.anon / 2 ** 20);
  const fdTrend = trendOf((s) => s.fds);
  console.log(`soak: ${total} requests in ${seconds.toFixed(0)} s (${(total / seconds).toFixed(0)}/s), ${errors} errors`);
  console.log(`soak: RSS ${mb(samples[0]?.rss ?? 0)} → ${mb(samples.at(-1)?.rss ?? 0)} MB; after warm-up (${(seconds * WARM_UP_SHARE).toFixed(0)} s) ${trend.toFixed(2)} MB/min (anonymous ${mb(samples[0]?.anon ?? 0)} → ${mb(samples.at(-1)?.anon ?? 0)} MB, ${anonTrend.toFixed(2)} MB/min), fds ${fdTrend.toFixed(2)}/min`);
  console.log(`soak: ${all.length} acknowledged writes, ${missing} not read back as sent`);
  for (const sample of errorSamples) console.log(`  error: ${sample}`);

  await agent.close();
  serve.child.kill('SIGTERM');
  await serve.exited;
  rmSync(dataDir, { recursive: true, force: true });
  return errors + missing;
}

void soak().then((problems) => process.exit(problems > 0 ? 1 : 0));
