/**
 * What history keeps of the bodies of the token endpoints: a token request with its data (and the obsolete `privacy`
 * object) redacted, and a body of any other shape as its size and shape only (redactedBody). History keeps only what
 * it can tell is not token data: fields the contract defines, with values of the types it defines.
 */
import { redactedBody } from '../history/redacted-body';
import type { LogDraft } from '../server/route-types';
import { clientTokenRequest, tokenOrConversion } from './token-requests';
import { REDACTED } from './token-service';

/** Fields whose values are whatever the client sent: token data (in the clear or encrypted), or an object nobody reads. */
const HIDDEN_FIELDS = new Set(['data', 'encrypted', 'privacy']);
const FIELDS = new Set(Object.keys(clientTokenRequest.shape));

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNameOrAbsent = (v: unknown) => v === undefined || typeof v === 'string';

/**
 * A token request (POST /tokens, PATCH, a /tokenize item) that its schema accepted, as history keeps it. A PATCH
 * reads `id` and `type` as anything so that it can refuse a change; anything but a string there is not shown.
 */
function tokenRequestForLog(body: unknown): unknown {
  if (!isObject(body) || !Object.keys(body).every((k) => FIELDS.has(k)) || !isNameOrAbsent(body.id) || !isNameOrAbsent(body.type)) {
    return redactedBody(body);
  }
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, HIDDEN_FIELDS.has(k) ? REDACTED : v]));
}

/** Validates a token request with `parse` and records it in `log`: as a token request when it is one, else redacted. */
export function parseTokenRequest<T>(log: LogDraft, body: unknown, parse: (body: unknown) => T): T {
  let input: T;
  try {
    input = parse(body);
  } catch (error) {
    log.requestBody = redactedBody(body);
    throw error;
  }
  log.requestBody = tokenRequestForLog(body);
  return input;
}

/** POST /tokenize bodies: token requests as above, every other primitive leaf is data; the graph's keys are kept. */
export function tokenizeBodyForLog(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(tokenizeBodyForLog);
  if (!isObject(body)) return body === null ? null : REDACTED;
  if (('type' in body && ('data' in body || 'encrypted' in body)) || 'token_intent_id' in body) {
    return tokenOrConversion(body, clientTokenRequest).safeParse(body).success ? tokenRequestForLog(body) : redactedBody(body);
  }
  return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, tokenizeBodyForLog(v)]));
}
