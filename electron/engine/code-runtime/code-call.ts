/*
 * The code runtime's contract with its callers (the proxy's code transform, reactors): what a call carries and what
 * comes back. Field names on the wire objects are the vendor's (vendor-surfaces.md §2.4–2.7).
 */

export type RuntimeImage = 'node-bt' | 'node22';

/** A code transform's `options.runtime` or a reactor's `runtime` (§2.6), already validated by its owner. */
export interface RuntimeOptions {
  image: RuntimeImage;
  /** node22: packages the code requires, with their exact versions, found in the call's `dependenciesDir`. */
  dependencies?: Record<string, string>;
  resolutions?: Record<string, string>;
  /** node22: seconds the code may run before it is stopped. */
  timeout?: number;
  warm_concurrency?: number;
  resources?: string;
  permissions?: string[];
  async?: boolean;
}

export type CodeKind = 'proxy-request' | 'proxy-response' | 'reactor';

/** A proxy request as a request transform sees it (§2.4): the body after detokenization, parsed when JSON. */
export interface ProxyRequestArgs {
  body: unknown;
  headers: Record<string, string>;
  method: string;
  path: string;
  query: string;
}

/** The destination's answer as a response transform sees it; node-bt code is not shown the status. */
export interface ProxyResponseArgs {
  body: unknown;
  headers: Record<string, string>;
  statusCode: number;
}

/** A reactor's invoke body after detokenization: node-bt code gets its `args`, node22 code the whole body as `req`. */
export interface ReactorInvocation {
  args?: unknown;
  [field: string]: unknown;
}

interface CallBase {
  code: string;
  runtime: RuntimeOptions;
  configuration: Record<string, string>;
  /** A key of the proxy's or reactor's application (node-bt), or the temporary key of `runtime.permissions` (node22). */
  applicationKey?: string;
  /** node22: the folder whose node_modules holds `runtime.dependencies`. */
  dependenciesDir?: string;
  /** In place of the runtime's limit: an asynchronous reactor's run, which may take longer than a synchronous call. */
  timeoutMs?: number;
}

export type CodeCall = CallBase &
  (
    | { kind: 'proxy-request'; args: ProxyRequestArgs }
    | { kind: 'proxy-response'; args: ProxyResponseArgs }
    | { kind: 'reactor'; args: ReactorInvocation }
  );

/**
 * A body as code returned it: a string or bytes go out as they are, anything else (already through JSON, so plain
 * data) goes out as JSON.
 */
export type CodeBody = unknown;

/**
 * What a proxy transform asks for. `continue`: go on with these (a key left out keeps what the proxy had; only node22
 * response code sets `statusCode`). `respond`: answer the caller at once without the destination (node22 request code
 * returning `res`).
 */
export type TransformValue =
  | { next: 'continue'; body?: CodeBody; headers?: Record<string, string>; statusCode?: number }
  | { next: 'respond'; statusCode: number; headers: Record<string, string>; body: CodeBody };

/**
 * What a reactor returned. node-bt: the keys the code returned, of `raw`, `tokenize`, `body` and `headers` (§3.4).
 * node22: the response its `res` describes.
 */
export type ReactorValue =
  | { image: 'node-bt'; raw?: unknown; tokenize?: unknown; body?: unknown; headers?: unknown }
  | { image: 'node22'; statusCode: number; headers: Record<string, string>; body: CodeBody };

export type CodeValue = TransformValue | ReactorValue;

/** Problem details in the vendor's reactor-error shape, `errors` a map of string lists (§2.7). */
export interface ProblemFailure {
  kind:
    | 'reactor-error' // code threw BasisTheoryReactorError or a subclass: its status
    | 'runtime-error' // code threw anything else, returned something invalid, or required a refused module: 500
    | 'compile-error' // code does not compile or does not export a function: 422
    | 'timeout' // code ran past its time limit and was stopped: 408
    | 'out-of-memory' // code reached the heap limit and was stopped: 500
    | 'node22-error' // node22 code threw: 502
    | 'dependency-unavailable' // node22 dependencies not found in the dependencies folder: 500
    | 'unavailable'; // the runtime is closed or cannot start a worker: 503
  status: number;
  detail: string;
  errors: Record<string, string[]>;
}

/** Code threw CustomHttpResponseError: its status, headers and body are the answer, as given. */
export interface CustomResponseFailure {
  kind: 'custom-response';
  status: number;
  headers: Record<string, string>;
  body: CodeBody;
}

export type CodeFailure = ProblemFailure | CustomResponseFailure;

export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';

/** One line the code logged with `console.*` or `logger.*`, `atMs` after it started. */
export interface CodeLog {
  level: LogLevel;
  message: string;
  atMs: number;
}

export type CodeOutcome =
  | { ok: true; value: CodeValue; logs: CodeLog[]; durationMs: number }
  | { ok: false; error: CodeFailure; logs: CodeLog[]; durationMs: number };

export interface CodeRuntime {
  run(call: CodeCall): Promise<CodeOutcome>;
  close(): Promise<void>;
}
