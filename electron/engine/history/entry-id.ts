import { randomBytes } from 'node:crypto';

let lastMs = 0;
let sequence = 0;
let timePrefix = idTimePrefix(0);

/**
 * The random part of every id this thread makes, drawn once when it loads. Within a thread the time and the sequence
 * already make each id unique (together they only grow), so the random bits only keep one thread's ids apart from
 * another's (the history worker's, a restarted process's, another replica's): one draw per thread does that, and
 * spares each id a fresh UUID.
 */
const RANDOM_TAIL = randomTail();

/** 62 random bits after v7's variant bits (10), as a UUID's last two groups. */
function randomTail(): string {
  const hex = randomBytes(8).toString('hex');
  return `${((parseInt(hex[0], 16) & 0x3) | 0x8).toString(16)}${hex.slice(1, 4)}-${hex.slice(4)}`;
}

/**
 * A UUIDv7 (RFC 9562): the time in ms, then a 12-bit sequence for ids made within the same ms, then random bits.
 * Ids made here only grow, so each new history row lands at the end of the id index instead of on a random page,
 * and sorting ids sorts entries by time.
 */
export function timeOrderedId(): string {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
    timePrefix = idTimePrefix(now);
  } else if (++sequence > 0xfff) {
    // More than 4,096 ids in one ms (or the clock went back): borrow the next ms, as the RFC allows.
    lastMs++;
    sequence = 0;
    timePrefix = idTimePrefix(lastMs);
  }
  return `${timePrefix}-${(0x7000 | sequence).toString(16)}-${RANDOM_TAIL}`;
}

/** The start of the ids made at `ms`: every id made before then sorts below it, every id made from then on above. */
export function idTimePrefix(ms: number): string {
  const time = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}`;
}
