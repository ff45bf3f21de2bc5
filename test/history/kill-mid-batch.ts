/**
 * Run as a child process by history-store.test.ts: opens the history in the given data dir, commits one batch, then
 * appends one so large that SQLite writes some of its pages into the file before the commit, and is killed
 * (SIGKILL, from another thread) in the middle of it: a crash of the engine while the history worker writes.
 */
import { Worker } from 'node:worker_threads';
import { HistoryStore, type StoredEntry } from '../../electron/engine/history/history-store';

const body = new Uint8Array(1024).fill(0x61);
const entry = (id: string): StoredEntry => [id, JSON.stringify({ id, request_body: { bytes: body.length, utf8: true } }), body];

// The committed batch is trimmed to the limit, so the cut one reuses pages of the file and rewrites its tree.
const store = HistoryStore.open({ dataDir: process.argv[2], limit: 1000, log: () => undefined });
store.append(Array.from({ length: 3000 }, (_, i) => entry(`committed-${i}`)));
const cut = Array.from({ length: 100_000 }, (_, i) => entry(`cut-${i}`));
process.stdout.write('committed\n');
// The worker's timer runs on its own thread, while this one is busy in the append below.
new Worker(`setTimeout(() => process.kill(${process.pid}, 'SIGKILL'), 50)`, { eval: true });
store.append(cut);
process.stdout.write('the batch ended before the kill\n');
