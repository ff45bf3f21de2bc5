/**
 * How soon a saved proxy file is live (issue 39: a changed file answers the next request within 500 ms): a real
 * engine serving `--proxies DIR`, its `.js` saved as an editor saves (a temporary file renamed over the old one), and
 * requests sent one after another until one comes back with the new code's mark. Measured from the rename.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startEngine } from '../../electron/engine';
import { percentile } from './load';
import { verdict } from './page-measures';
import type { SuiteResult } from './report';

export interface ProxyFilesBenchOptions {
  /** Saves measured. */
  rounds: number;
  log(line: string): void;
}

const SAVES_PER_ROUND = 20;
const TARGET_MS = 500;
/** A save never seen by then counts as an error. */
const GIVE_UP_MS = 5_000;
const round = (ms: number) => Math.round(ms * 10) / 10;
const code = (mark: number) => `module.exports = async () => { throw new CustomHttpResponseError({ status: 200, body: { mark: ${mark} } }); };\n`;
const CustomError = "const { CustomHttpResponseError } = require('@basis-theory/basis-theory-reactor-formulas-sdk-js');\n";

export async function runProxyFilesBench({ rounds, log }: ProxyFilesBenchOptions): Promise<SuiteResult> {
  const folder = mkdtempSync(join(tmpdir(), 'tokenbench-bench-proxies-'));
  const save = (name: string, text: string) => {
    writeFileSync(join(folder, `.${name}.tmp`), text);
    renameSync(join(folder, `.${name}.tmp`), join(folder, name));
  };
  save('mark.request.js', CustomError + code(0));
  save('mark.json', JSON.stringify({ name: 'Mark', destination_url: 'http://127.0.0.1:9', require_auth: false, request_transforms: [{ code_file: 'mark.request.js' }] }));
  const engine = await startEngine({ port: 0, echoPort: null, dataDir: null, log: () => undefined, proxiesDir: folder, proxyFilesReport: () => undefined });
  const listed = await engine.workbench.listProxyFiles({});
  const proxyKey = await fetchKey(engine.url, listed.files[0].served!.id, engine.bootstrapKeys!.management.key);
  const markNow = async () => {
    const res = await request(`${engine.url}/proxy`, { method: 'POST', headers: { 'BT-PROXY-KEY': proxyKey, 'content-type': 'application/json' }, body: '{}' });
    const text = await res.body.text();
    return res.statusCode === 200 ? (JSON.parse(text) as { mark?: number }).mark : undefined;
  };
  // The first call starts the code runtime's pool: a cost of the first request, not of a save.
  await markNow();
  const live: number[] = [];
  let errors = 0;
  let mark = 0;
  try {
    for (let r = 1; r <= rounds; r++) {
      log(`proxy-files: round ${r} of ${rounds}`);
      for (let i = 0; i < SAVES_PER_ROUND; i++) {
        mark++;
        const savedAt = performance.now();
        save('mark.request.js', CustomError + code(mark));
        let seen = false;
        while (performance.now() - savedAt < GIVE_UP_MS) {
          if ((await markNow()) === mark) {
            seen = true;
            break;
          }
        }
        if (seen) live.push(performance.now() - savedAt);
        else errors++;
      }
    }
  } finally {
    await engine.stop();
    rmSync(folder, { recursive: true, force: true });
  }
  const sorted = [...live].sort((a, b) => a - b);
  const worst = sorted[sorted.length - 1] ?? Number.NaN;
  const met = errors === 0 && worst <= TARGET_MS;
  return {
    suite: 'proxy-files',
    title: 'Proxies as files: a saved .js live for the next request',
    baselineSystem: '',
    measurements: [],
    tables: [
      {
        title: `${rounds * SAVES_PER_ROUND} saves (a temporary file renamed over the code file), each followed by requests until one runs the new code`,
        columns: ['saves', 'p50 ms', 'p99 ms', 'slowest ms', 'never live', 'target'],
        rows: [[live.length + errors, round(percentile(sorted, 50)), round(percentile(sorted, 99)), round(worst), errors, `every save live ≤ ${TARGET_MS} ms: ${verdict(met)}`]],
      },
    ],
    notes: ['Measured from the rename to the answer that shows the new code: the watcher, the settle time, the read, the check, the compile and one request.'],
    data: { liveMs: live, errors },
  };
}

/** The proxy's invocation key, as a client reads it. */
async function fetchKey(url: string, id: string, managementKey: string): Promise<string> {
  const res = await request(`${url}/proxies/${id}`, { headers: { 'BT-API-KEY': managementKey } });
  return ((await res.body.json()) as { key: string }).key;
}
