import type { Worker } from 'node:worker_threads';
import type { CodeFailure, CodeLog } from './code-call';
import { failure, runtimeError } from './failures';
import type { FromWorker, WorkerCall, WorkerResult } from './worker-messages';

export interface PoolOptions {
  /** Workers kept started and idle, ready for the next invocation. */
  size: number;
  /** Workers at most, busy ones included; invocations beyond wait for one. */
  max: number;
  /** Old-generation heap of each worker, in MB. */
  heapMb: number;
  start(limits: { maxOldGenerationSizeMb: number }): Worker;
  log(line: string): void;
}

export interface PoolRun {
  result: WorkerResult;
  logs: CodeLog[];
}

interface Job {
  call: WorkerCall;
  timeoutMs: number;
  done(run: PoolRun): void;
}

const unavailable = (message: string): PoolRun => ({
  result: { ok: false, error: failure('unavailable', 503, 'Service Unavailable', message) },
  logs: [],
});

/**
 * A warm pool of code runtime workers. Each invocation gets a worker of its own for as long as it runs; past its time
 * limit the worker is terminated (which stops even a loop that never yields) and another is started, so the pool stays
 * warm. A worker that dies (out of memory, `process.exit`) fails only its own invocation.
 */
export class WorkerPool {
  /** Idle workers, each with the listener that drops it from here should it end while idle. */
  private readonly idle: { worker: Worker; onExit(): void }[] = [];
  private readonly busy = new Set<Worker>();
  private starting = 0;
  private readonly waiting: Job[] = [];
  private closed = false;

  constructor(private readonly options: PoolOptions) {
    this.refill();
  }

  private get count() {
    return this.idle.length + this.busy.size + this.starting;
  }

  run(call: WorkerCall, timeoutMs: number): Promise<PoolRun> {
    if (this.closed) return Promise.resolve(unavailable('The code runtime is closed'));
    return new Promise((done) => {
      const job = { call, timeoutMs, done };
      const idle = this.idle.pop();
      if (idle) {
        idle.worker.off('exit', idle.onExit);
        this.dispatch(idle.worker, job);
      } else {
        this.waiting.push(job);
        // A worker already starting will take a waiting invocation; only one more than they can take needs another.
        if (this.waiting.length > this.starting && this.count < this.options.max) this.startWorker();
      }
    });
  }

  /** Starts workers until `size` are idle or on their way (within `max`). */
  private refill(): void {
    while (!this.closed && this.idle.length + this.starting < this.options.size && this.count < this.options.max) this.startWorker();
  }

  private startWorker(): void {
    this.starting++;
    let worker: Worker;
    try {
      worker = this.options.start({ maxOldGenerationSizeMb: this.options.heapMb });
    } catch (error) {
      this.starting--;
      return this.startFailed((error as Error).message);
    }
    const onExit = (code: number) => {
      this.starting--;
      this.startFailed(`its worker exited with code ${code} before it was ready`);
    };
    worker.once('exit', onExit);
    // A worker's error is followed by its exit, which is what is acted on; unlistened, the error would end the engine.
    worker.on('error', () => undefined);
    worker.once('message', (message: FromWorker) => {
      if (message.type !== 'ready') return;
      worker.off('exit', onExit);
      this.starting--;
      if (this.closed) void worker.terminate();
      else this.release(worker);
    });
  }

  /** Without a worker, the invocations waiting for one cannot run: they fail now rather than wait forever. */
  private startFailed(reason: string): void {
    this.options.log(`Code runtime: a worker could not start: ${reason}`);
    if (this.starting > 0) return;
    for (const job of this.waiting.splice(0)) job.done(unavailable(`The code runtime could not start a worker: ${reason}`));
  }

  /** A ready worker takes the next waiting invocation, else waits idle (unless enough already do). */
  private release(worker: Worker): void {
    const job = this.waiting.shift();
    if (job) return this.dispatch(worker, job);
    if (this.idle.length >= this.options.size) return void worker.terminate();
    // An idle worker does not keep the process alive.
    worker.unref();
    const entry = {
      worker,
      onExit: () => {
        const at = this.idle.indexOf(entry);
        if (at >= 0) this.idle.splice(at, 1);
        this.refill();
      },
    };
    worker.once('exit', entry.onExit);
    this.idle.push(entry);
  }

  private dispatch(worker: Worker, job: Job): void {
    this.busy.add(worker);
    worker.ref();
    let ended = false;
    const logs: CodeLog[] = [];
    const end = (run: PoolRun, replace: boolean) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      this.busy.delete(worker);
      job.done(run);
      if (!replace) return this.release(worker);
      void worker.terminate();
      this.refill();
    };
    const stopped = (error: CodeFailure, why: string) => {
      if (this.closed) return end(unavailable('The code runtime closed'), true);
      this.options.log(`Code runtime: ${why}; its worker was replaced`);
      end({ result: { ok: false, error }, logs }, true);
    };
    const onMessage = (message: FromWorker) => {
      if (message.type === 'log') logs.push(message.log);
      else if (message.type === 'done') end({ result: message.result, logs }, false);
    };
    const onError = (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        const limit = `The code used more memory than its limit of ${this.options.heapMb} MB`;
        stopped(failure('out-of-memory', 500, 'Reactor Runtime Error', limit), 'code ran out of memory');
      } else stopped(runtimeError(`The code's worker stopped: ${error.message}`), 'code stopped its worker');
    };
    const onExit = (code: number) => stopped(runtimeError(`The code ended its worker (exit code ${code})`), 'code ended its worker');
    const timer = setTimeout(() => {
      const seconds = job.timeoutMs / 1000;
      stopped(failure('timeout', 408, 'Code Timed Out', `The code ran longer than its limit of ${seconds} s and was stopped`), `code ran past ${seconds} s`);
    }, job.timeoutMs);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage({ type: 'run', call: job.call });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.done(unavailable('The code runtime closed'));
    const workers = [...this.idle.splice(0).map((idle) => idle.worker), ...this.busy];
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
