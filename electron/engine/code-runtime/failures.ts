import type { CodeFailure, ProblemFailure, RuntimeImage } from './code-call';
import { errorsOf } from './reactor-errors';
import { body, headerValues, InvalidReturn, isObject, isStatus } from './returned-values';

/*
 * How a failed invocation is classified and shown (vendor-surfaces.md §2.7). Thrown values are recognised by their
 * name and fields, not by identity: code may bundle its own copy of the vendor's error module, or subclass it.
 */

const TITLE = 'One or more validation errors occurred.';

/** A failure whose `errors` hold one message. */
export function failure(kind: ProblemFailure['kind'], status: number, detail: string, message: string): ProblemFailure {
  return { kind, status, detail, errors: { error: [message] } };
}

export const runtimeError = (message: string) => failure('runtime-error', 500, 'Reactor Runtime Error', message);

export const compileError = (message: string) => failure('compile-error', 422, 'Invalid Code', message);

/** The problem details the vendor answers for a failure: the proxy wraps them in `proxy_error`, a reactor does not. */
export function failureProblem({ status, detail, errors }: ProblemFailure) {
  return { title: TITLE, status, detail, errors };
}

/** The answer a CustomHttpResponseError describes, its body and headers checked as a returned value's. */
function customResponse(thrown: Record<string, unknown>, status: number): CodeFailure {
  const headers = headerValues(thrown.headers ?? {});
  if (!headers) return runtimeError('CustomHttpResponseError headers must map header names to strings');
  try {
    return { kind: 'custom-response', status, headers, body: body(thrown.body ?? {}, 'CustomHttpResponseError body') };
  } catch (error) {
    if (error instanceof InvalidReturn) return runtimeError(error.message);
    throw error;
  }
}

/** A thrown value's message for `errors.error`: an Error's message, a string, or the value as JSON. */
function thrownMessage(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  if (typeof thrown === 'string') return thrown;
  try {
    return JSON.stringify(thrown) ?? String(thrown);
  } catch {
    return String(thrown);
  }
}

/** What code that threw `thrown` answers: node22 code that throws is a bad gateway; node-bt follows §2.7. */
export function classifyThrown(thrown: unknown, image: RuntimeImage): CodeFailure {
  if (image === 'node22') return failure('node22-error', 502, 'Bad Gateway', thrownMessage(thrown));
  if (isObject(thrown) && thrown.name === 'CustomHttpResponseError' && isStatus(thrown.status)) return customResponse(thrown, thrown.status);
  if (isObject(thrown) && isStatus(thrown.status) && isObject(thrown.errors)) {
    const message = typeof thrown.message === 'string' ? thrown.message : '';
    return { kind: 'reactor-error', status: thrown.status, detail: message, errors: errorsOf(thrown.errors) };
  }
  return runtimeError(thrownMessage(thrown));
}
