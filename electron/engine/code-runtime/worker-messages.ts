import type { CodeCall, CodeFailure, CodeLog, CodeValue } from './code-call';
import type { LogLimits } from './log-capture';

/** One invocation as the pool hands it to a worker: the call, and what the worker cannot know by itself. */
export type WorkerCall = CodeCall & { engineUrl: string; logLimits: LogLimits };

export type ToWorker = { type: 'run'; call: WorkerCall };

export type WorkerResult = { ok: true; value: CodeValue } | { ok: false; error: CodeFailure };

/** A worker says once that it is ready, then answers each run with its log lines as written, then one `done`. */
export type FromWorker = { type: 'ready' } | { type: 'log'; log: CodeLog } | { type: 'done'; result: WorkerResult };
