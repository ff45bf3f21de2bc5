import type { CodeKind, CodeValue } from './code-call';
import type { Contract } from './contract';
import { body, bodyAndHeaders, headers, InvalidReturn, isObject, statusCode } from './returned-values';

/*
 * node22 (vendor-surfaces.md §2.5, §3.4): the code gets one `event` with `req` (or a response transform's `res`),
 * `configuration`, `logger` and `applicationOptions`, and no `bt`. Returning `{ req }` goes on to the destination;
 * returning `{ res }` answers (a request transform then skips the destination).
 */

/** A returned `res` whole: the answer it describes. */
function response(res: Record<string, unknown>) {
  return {
    statusCode: res.statusCode === undefined ? 200 : statusCode(res.statusCode, 'res.statusCode'),
    headers: res.headers === undefined ? {} : headers(res.headers, 'res.headers'),
    body: res.body === undefined ? '' : body(res.body, 'res.body'),
  };
}

const RETURNS: Record<CodeKind, string> = {
  'proxy-request': '{ req: { body, headers } } to go on, or { res: { statusCode, headers, body } } to answer',
  'proxy-response': '{ res: { statusCode, headers, body } }',
  reactor: '{ res: { statusCode, headers, body } }',
};

export const node22Contract: Contract = {
  argument(call, { configuration, applicationOptions, logger }) {
    const scope = { configuration, logger, ...(applicationOptions && { applicationOptions }) };
    return call.kind === 'proxy-response' ? { res: call.args, ...scope } : { req: call.args, ...scope };
  },

  value(kind: CodeKind, returned: unknown): CodeValue {
    const res = isObject(returned) && isObject(returned.res) ? returned.res : null;
    const req = isObject(returned) && isObject(returned.req) ? returned.req : null;
    if (kind === 'reactor' && res) return { image: 'node22', ...response(res) };
    if (kind === 'proxy-request' && res) return { next: 'respond', ...response(res) };
    if (kind === 'proxy-request' && req) return { next: 'continue', ...bodyAndHeaders(req, 'req') };
    if (kind === 'proxy-response' && res) {
      return { next: 'continue', ...bodyAndHeaders(res, 'res'), ...(res.statusCode !== undefined && { statusCode: statusCode(res.statusCode, 'res.statusCode') }) };
    }
    throw new InvalidReturn(`node22 code here returns ${RETURNS[kind]}`);
  },
};
