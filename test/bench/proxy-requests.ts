/**
 * Request bodies for the proxy benchmark: JSON of an exact size with a given number of token expressions, each body
 * unique (a fixed-width request number, as real traffic never repeats a body byte for byte, so no body cache helps)
 * and all the same length, so the length the destination must see is known in advance.
 */
import type { RequestPlan } from './load';
import { expectReply } from './vault-client';
import { cardRequest } from './vault-data';

/** A card token in the vault and the number its `$.number` expression reveals. */
export interface BenchCard {
  id: string;
  number: string;
}

export interface BenchBody {
  /** The body of request number `seq` (0 ≤ seq < 10^12). */
  body(seq: number): string;
  /** Bytes as sent (every body is ASCII). */
  sentBytes: number;
  /** Bytes once every expression is replaced by its card number: what a detokenizing proxy forwards. */
  detokenizedBytes: number;
}

const SEQ_WIDTH = 12;
/** Every body opens with its request number. */
const HEAD = '{"request_id":"';

/** Ids of the fixed cards (card-01, card-02, …) and of a rotating pool (p-00001, …): seven characters each. */
const CARD_ID = (i: number) => `card-${String(i).padStart(2, '0')}`;
const POOL_ID = (i: number) => `p-${String(i).padStart(5, '0')}`;
/** The largest pool whose ids keep that length. */
const MAX_POOL = 99_999;

/**
 * Creates `count` card tokens with short ids (card-01, card-02, …, or with `pool`, p-00001, …), so 20 expressions fit
 * in a 1 KB body; `apiKey` needs token:create.
 */
export async function createBenchCards(url: string, apiKey: string, count: number, pool = false): Promise<BenchCard[]> {
  if (pool && count > MAX_POOL) throw new Error(`a pool holds at most ${MAX_POOL} tokens`);
  const cards: BenchCard[] = [];
  for (let i = 1; i <= count; i++) {
    const { request } = cardRequest(i);
    const id = pool ? POOL_ID(i) : CARD_ID(i);
    await expectReply(201, url, apiKey, 'POST', '/tokens', { id, ...request });
    cards.push({ id, number: (request.data as { number: string }).number });
  }
  return cards;
}

/** The expression a body holds for `card`: its number, through the JSONPath filter. */
export const cardExpression = (card: BenchCard) => `{{ ${card.id} | json: '$.number' }}`;

/** One order line; the filler that brings a body to its size is structured JSON, as a real payload is. */
const line = (n: number) =>
  `{"sku":"SKU-${String(n).padStart(5, '0')}","qty":${(n % 9) + 1},"description":"Line item ${n} of the benchmark order"}`;

/**
 * `{"request_id":"<seq>","cards":["{{ … }}",…],"lines":[{…},…],"note":"xxx"}` of exactly `bytes` bytes with one
 * whole-string expression per card (a JSON string that is one expression becomes the card number, quoted).
 */
export function benchBody(bytes: number, cards: readonly BenchCard[]): BenchBody {
  const cardList = cards.map((card) => `"${cardExpression(card)}"`).join(',');
  const open = `","cards":[${cardList}],"lines":[`;
  const close = (lines: string, note: string) => `${lines}],"note":"${note}"}`;
  const fixed = HEAD.length + SEQ_WIDTH + open.length + close('', '').length;
  if (fixed > bytes) throw new Error(`${cards.length} expressions do not fit in a ${bytes}-byte body`);

  const lines: string[] = [];
  let linesLength = 0;
  for (let n = 1; ; n++) {
    const added = (lines.length > 0 ? 1 : 0) + line(n).length;
    if (fixed + linesLength + added > bytes) break;
    lines.push(line(n));
    linesLength += added;
  }
  const tail = open + close(lines.join(','), 'x'.repeat(bytes - fixed - linesLength));
  const revealed = cards.reduce((sum, card) => sum + card.number.length - cardExpression(card).length, 0);
  return {
    body: (seq) => HEAD + String(seq).padStart(SEQ_WIDTH, '0') + tail,
    sentBytes: bytes,
    detokenizedBytes: bytes + revealed,
  };
}

/**
 * benchBody whose expressions name tokens of `pool` in turn instead of `cards`, as real traffic names another
 * customer's tokens in every request: request `seq` names pool[(seq × n + i) mod pool size] for its i-th expression.
 * Pool ids and numbers have the cards' lengths, so every body has the same size and detokenized size.
 */
export function rotatingBody(bytes: number, cards: readonly BenchCard[], pool: readonly BenchCard[]): BenchBody {
  if (cards.length === 0) throw new Error('a rotating body needs at least one expression');
  const fixed = benchBody(bytes, cards);
  const same = (a: BenchCard, b: BenchCard) => a.id.length === b.id.length && a.number.length === b.number.length;
  if (!pool.every((p) => cards.every((c) => same(p, c)))) throw new Error('pool ids and numbers must have the cards\' lengths');
  // The fixed body after its request number, cut around each card id; the ids come between the pieces.
  const pieces = fixed.body(0).slice(HEAD.length + SEQ_WIDTH).split(new RegExp(cards.map((c) => c.id).join('|')));
  const n = cards.length;
  return {
    ...fixed,
    body: (seq) => {
      let out = HEAD + String(seq).padStart(SEQ_WIDTH, '0') + pieces[0];
      for (let i = 0; i < n; i++) out += pool[(seq * n + i) % pool.length].id + pieces[i + 1];
      return out;
    },
  };
}

/**
 * POST /proxy with a new body each time; the destination answers {"len": N} and N must be `expectedLen` (the body
 * as sent, or as detokenized when the system detokenizes), so a dropped, cut or untouched body fails the check.
 */
export function proxyPlan(body: BenchBody, expectedLen: number, nextSeq: () => number): RequestPlan {
  return {
    next: () => ({ method: 'POST', path: '/proxy', body: body.body(nextSeq()) }),
    check(status, text) {
      if (status !== 200) return false;
      try {
        return (JSON.parse(text) as { len?: unknown }).len === expectedLen;
      } catch {
        return false;
      }
    },
  };
}
