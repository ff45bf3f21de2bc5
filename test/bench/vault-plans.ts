import type { FixedReply } from './baseline-server';
import type { RequestPlan } from './load';
import { cardRequest, sameData, type TokenExpectation } from './vault-data';
import type { FilledToken } from './vault-fill';

/** The fields of a token reply the checks read. */
interface TokenReply {
  id?: unknown;
  type?: unknown;
  data?: unknown;
  _extras?: { deduplicated?: unknown };
}

function parse(body: string): TokenReply | null {
  try {
    return JSON.parse(body) as TokenReply;
  } catch {
    return null;
  }
}

/** GET /tokens/{id} over ids drawn at random from the vault: the answer must be that token, masked. */
export function readPlan(tokens: readonly FilledToken[]): RequestPlan {
  return {
    next(context) {
      const token = tokens[Math.floor(Math.random() * tokens.length)];
      context.token = token;
      return { method: 'GET', path: `/tokens/${token.id}` };
    },
    check(status, body, context) {
      const token = context.token as FilledToken;
      const view = parse(body);
      return status === 200 && view?.id === token.id && view.type === token.type && sameData(view.data, token.maskedData);
    },
  };
}

/** POST /tokens with a new Luhn-valid card number each time (`nextSeq` numbers them): a new token, masked. */
export function createPlan(nextSeq: () => number): RequestPlan {
  return {
    next(context) {
      const { request, expected } = cardRequest(nextSeq());
      context.expected = expected;
      return { method: 'POST', path: '/tokens', body: JSON.stringify(request) };
    },
    check(status, body, context) {
      const expected = context.expected as TokenExpectation;
      const view = parse(body);
      return (
        status === 201 &&
        typeof view?.id === 'string' &&
        view.type === expected.type &&
        view._extras?.deduplicated === false &&
        sameData(view.data, expected.maskedData)
      );
    },
  };
}

/**
 * The same requests, sent to the baseline: its answer is fixed, so the check compares the parsed body's id with the
 * fixed reply's. Parsing costs the load generator what parsing the real answers does.
 */
export function againstFixedReply(plan: RequestPlan, reply: FixedReply): RequestPlan {
  const id = parse(reply.body)?.id;
  return { next: plan.next, check: (status, body) => status === reply.status && parse(body)?.id === id };
}
