/**
 * A proxy's `code` transform, run by the engine's code runtime (electron/engine/code-runtime/), and what its outcome
 * becomes (vendor §2.4, §2.5, §2.7): the next body and headers, an answer that skips the destination, or a
 * proxy_error in the vendor's reactor-error form.
 */
import { type CodeCall, type CodeLog, type CodeRuntime, failureProblem, type ProblemFailure } from '../code-runtime';
import type { ServerResponse } from 'node:http';
import { isStructured, toText } from '../expressions';
import { ApiProblem } from '../server/problem';

/** A failure of the code as the client gets it: the vendor's reactor-error body (its title whatever the status). */
export class CodeProblem extends ApiProblem {
  constructor(private readonly failure: ProblemFailure) {
    super(failure.status, failure.detail, failure.errors);
  }

  override toBody() {
    return { ...super.toBody(), ...failureProblem(this.failure) };
  }
}

/** What a transform's code gave: the next body, headers and status (each absent when unchanged), or an answer. */
export type CodeResult =
  | { next: { body?: unknown; headers?: Record<string, string>; statusCode?: number } }
  | { answer: { status: number; headers: Record<string, string>; body: unknown } };

/** Runs one code transform; a failure is thrown as the problem the client gets, unless it is an answer. */
export async function runCode(runtime: CodeRuntime, call: CodeCall): Promise<{ result: CodeResult; logs: CodeLog[] }> {
  const outcome = await runtime.run(call);
  if (!outcome.ok) {
    const { error } = outcome;
    if (error.kind !== 'custom-response') throw new CodeProblem(error);
    return { result: { answer: { status: error.status, headers: error.headers, body: error.body } }, logs: outcome.logs };
  }
  const { value } = outcome;
  if (!('next' in value)) throw new Error(`A ${call.kind} call came back with a reactor's value`);
  if (value.next === 'respond') return { result: { answer: { status: value.statusCode, headers: value.headers, body: value.body } }, logs: outcome.logs };
  const { next: _continue, ...next } = value;
  return { result: { next }, logs: outcome.logs };
}

/**
 * The engine's code runtime, started when first needed: its pool of workers costs an engine that never runs code
 * nothing. `warm()` starts it ahead of the first call (a proxy with a code transform was saved, or is stored). With a
 * `refusal` (the operator has not allowed code), saving code (`warm`) and running it are both refused with it (403).
 */
export function lazyCodeRuntime(make: () => CodeRuntime, refusal: string | null = null): CodeRuntime & { warm(): void } {
  let runtime: CodeRuntime | undefined;
  const started = () => {
    if (refusal !== null) throw new ApiProblem(403, refusal);
    return (runtime ??= make());
  };
  return {
    warm: () => void started(),
    run: async (call) => started().run(call),
    close: () => runtime?.close() ?? Promise.resolve(),
  };
}

/** What code returned as a body, on the wire: objects and arrays as JSON, the rest as text. */
export function wireBody(value: unknown): Buffer {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  return Buffer.from(isStructured(value) ? JSON.stringify(value) : toText(value));
}

/**
 * An answer code chose (CustomHttpResponseError, node22's `res`, a reactor's result): as given, JSON unless its
 * headers say otherwise, with `extra` headers (none of the proxy's own).
 */
export function answerFromCode(res: ServerResponse, answer: { status: number; headers: Record<string, string>; body: unknown }, extra: Record<string, string> = {}): 'sent' {
  const body = wireBody(answer.body ?? {});
  const headers = { ...(isStructured(answer.body) && { 'content-type': 'application/json' }), ...answer.headers, ...extra, 'content-length': String(body.length) };
  res.writeHead(answer.status, headers);
  res.end(body);
  return 'sent';
}
