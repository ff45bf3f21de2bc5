import type { CodeKind, CodeValue } from './code-call';
import type { Contract } from './contract';
import { body, bodyAndHeaders, describe, InvalidReturn, isObject } from './returned-values';

/*
 * node-bt, the vendor's default runtime (vendor-surfaces.md §2.4, §3.4): the code gets `req` with `args`,
 * `configuration`, `bt` and `applicationOptions`, and returns `{ body, headers }` (transforms) or `{ raw, tokenize }`
 * (reactors).
 */

/** What a reactor's code returned: the keys it gave, of those the response carries (§3.4). */
function reactorValue(returned: unknown): CodeValue {
  if (returned === undefined || returned === null) return { image: 'node-bt' };
  if (!isObject(returned)) throw new InvalidReturn(`A reactor returns { raw, tokenize }; this one returned ${describe(returned)}`);
  const value: CodeValue = { image: 'node-bt' };
  for (const key of ['raw', 'tokenize', 'body', 'headers'] as const) {
    if (returned[key] !== undefined) value[key] = body(returned[key], key);
  }
  return value;
}

export const nodeBtContract: Contract = {
  argument(call, { configuration, applicationOptions, bt }) {
    const args = call.kind === 'proxy-response' ? { body: call.args.body, headers: call.args.headers } : call.kind === 'reactor' ? call.args.args : call.args;
    return { args, configuration, bt, ...(applicationOptions && { applicationOptions }) };
  },

  value(kind: CodeKind, returned: unknown): CodeValue {
    if (kind === 'reactor') return reactorValue(returned);
    if (!isObject(returned)) throw new InvalidReturn(`A transform returns { body, headers }; this one returned ${describe(returned)}`);
    return { next: 'continue', ...bodyAndHeaders(returned, 'the returned object') };
  },
};
