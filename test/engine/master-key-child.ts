/**
 * Run as a child process by master-key.test.ts: first starts on fresh data folders, several at once on each (threads
 * released together by a barrier, so their creations of the key overlap), and prints what each start got.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { loadOrCreateMasterKey, MASTER_KEY_FILE } from '../../electron/engine/storage/crypto';

interface Job {
  dirs: string[];
  arrived: Int32Array;
  starts: number;
}

/** One start's answer: the key it will seal under, or why it could not start. */
function start(dir: string): string {
  try {
    return loadOrCreateMasterKey(dir).toString('base64');
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
}

async function main(): Promise<void> {
  const [starts, rounds] = process.argv.slice(2).map(Number);
  const dirs = Array.from({ length: rounds }, () => mkdtempSync(join(tmpdir(), 'tokenbench-key-race-')));
  const arrived = new Int32Array(new SharedArrayBuffer(4));
  const workers = Array.from({ length: starts }, () => new Worker(__filename, { workerData: { dirs, arrived, starts } satisfies Job }));
  const answers = await Promise.all(workers.map((worker) => new Promise<string[]>((resolve) => worker.once('message', resolve))));
  const report = dirs.map((dir, round) => ({ dir, kept: readFileSync(join(dir, MASTER_KEY_FILE), 'utf8').trim(), got: answers.map((a) => a[round]) }));
  process.stdout.write(JSON.stringify(report));
}

if (isMainThread) {
  void main();
} else {
  const { dirs, arrived, starts } = workerData as Job;
  const got = dirs.map((dir, round) => {
    // Spinning rather than sleeping: every thread leaves the barrier at once.
    Atomics.add(arrived, 0, 1);
    while (Atomics.load(arrived, 0) < starts * (round + 1));
    return start(dir);
  });
  parentPort!.postMessage(got);
}
