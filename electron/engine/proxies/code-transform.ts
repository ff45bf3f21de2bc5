/**
 * A proxy's `code` transform, run by the engine's code runtime (electron/engine/code-runtime/, given at start), and
 * what its outcome becomes (vendor §2.4, §2.5, §2.7): the next body and headers, an answer that skips the destination,
 * or a proxy_error.
 */
import { ApiProblem } from '../server/problem';
import type { RuntimeOptions } from './proxy-model';

/** What the code runtime takes and answers (the contract both issue-39 branches keep; the runtime implements it). */
export interface CodeCall {
  code: string;
  runtime: RuntimeOptions;
  kind: 'proxy-request' | 'proxy-response' | 'reactor';
  /** The spec's argument object for the kind and runtime, without configuration (given apart). */
  args: unknown;
  configuration: Record<string, string>;
  applicationKey?: string;
}

export interface CodeLog {
  level: string;
  message: string;
}

/** How a run failed, classified as §2.7 renders it. */
export type CodeFailure =
  | { kind: 'reactor_error'; status: number; detail: string; errors: Record<string, string[]> }
  | { kind: 'custom_response'; status: number; headers: Record<string, string>; body: unknown }
  | { kind: 'runtime'; message: string }
  | { kind: 'compile'; message: string }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'node22_threw'; message: string };

export type CodeOutcome = { ok: true; value: unknown; logs: CodeLog[]; durationMs: number } | { ok: false; error: CodeFailure; logs: CodeLog[]; durationMs: number };

export interface CodeRuntime {
  run(call: CodeCall): Promise<CodeOutcome>;
  close(): Promise<void>;
}

const REACTOR_TITLE = 'One or more validation errors occurred.';

/** A problem in the vendor's reactor-error form: its title is the same whatever the status (§2.7). */
export class ReactorProblem extends ApiProblem {
  override toBody() {
    return { ...super.toBody(), title: REACTOR_TITLE };
  }
}

const runtimeError = (message: string) => new ReactorProblem(500, 'Reactor Runtime Error', { error: [message] });

/** What a transform's code gave: the next body and headers (each absent when unchanged), or an answer for the client. */
export type CodeResult = { next: { body?: unknown; headers?: Record<string, string> } } | { answer: { status: number; headers: Record<string, string>; body: unknown } };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function stringHeaders(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value)) throw runtimeError('headers must be an object of header names to values');
  return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, String(v)]));
}

/** The value a run returned, as the next body and headers, or an answer (node22's `res`). */
function resultOf(value: unknown, runtime: RuntimeOptions): CodeResult {
  if (!isObject(value)) throw runtimeError('the transform must return an object with body and headers');
  if (runtime.image === 'node22') {
    if (isObject(value.res)) {
      const res = value.res;
      return { answer: { status: typeof res.statusCode === 'number' ? res.statusCode : 200, headers: stringHeaders(res.headers) ?? {}, body: res.body } };
    }
    if (!isObject(value.req)) throw runtimeError('a node22 transform returns { req: { body, headers } } or { res: { statusCode, headers, body } }');
    value = value.req;
  }
  const next = value as Record<string, unknown>;
  return { next: { ...('body' in next && { body: next.body }), ...(next.headers !== undefined && { headers: stringHeaders(next.headers) }) } };
}

/** The failure as the client gets it (§1.5's error table). */
function problemOf(failure: CodeFailure): ApiProblem | CodeResult {
  switch (failure.kind) {
    case 'reactor_error':
      return new ReactorProblem(failure.status, failure.detail, failure.errors);
    case 'custom_response':
      return { answer: { status: failure.status, headers: failure.headers, body: failure.body } };
    case 'runtime':
      return runtimeError(failure.message);
    case 'compile':
      return new ApiProblem(422, `The transform's code does not compile or does not export a function: ${failure.message}`);
    case 'timeout':
      return new ApiProblem(408, `The transform's code did not finish within ${failure.timeoutMs} ms`);
    case 'node22_threw':
      return new ApiProblem(502, `The transform's code threw: ${failure.message}`);
  }
}

/** Runs one code transform; a failure is thrown as the problem the client gets, unless it is an answer. */
export async function runCode(runtime: CodeRuntime | undefined, call: CodeCall): Promise<{ result: CodeResult; logs: CodeLog[] }> {
  if (!runtime) throw runtimeError('The code runtime is not available in this engine, so code transforms cannot run');
  const outcome = await runtime.run(call);
  if (outcome.ok) return { result: resultOf(outcome.value, call.runtime), logs: outcome.logs };
  const failed = problemOf(outcome.error);
  if (failed instanceof ApiProblem) throw failed;
  return { result: failed, logs: outcome.logs };
}
