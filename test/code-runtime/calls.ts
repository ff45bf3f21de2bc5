import type { CodeCall, CodeOutcome, CodeRuntime, ProxyRequestArgs, RuntimeImage } from '../../electron/engine/code-runtime';

/** A POST through a proxy as a request transform sees it. */
export const REQUEST: ProxyRequestArgs = {
  body: { card: { number: '4242424242424242' }, amount: 1200 },
  headers: { 'Content-Type': 'application/json', 'X-Trace': 'abc' },
  method: 'POST',
  path: '/v1/charges',
  query: '?expand=card',
};

/** Runs `code` as a request transform (unless `call` says otherwise) of the given runtime. */
export function runCode(runtime: CodeRuntime, code: string, image: RuntimeImage = 'node-bt', call: Partial<CodeCall> = {}): Promise<CodeOutcome> {
  return runtime.run({ code, runtime: { image }, kind: 'proxy-request', args: REQUEST, configuration: { MERCHANT: 'acme' }, ...call } as CodeCall);
}

/** The failure of an outcome that must have failed. */
export function failureOf(outcome: CodeOutcome) {
  if (outcome.ok) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

/** The value of an outcome that must have succeeded. */
export function valueOf(outcome: CodeOutcome) {
  if (!outcome.ok) throw new Error(`expected a value, got ${JSON.stringify(outcome.error)}`);
  return outcome.value;
}

export const ERRORS = "require('@basis-theory/basis-theory-reactor-formulas-sdk-js')";
