import { randomUUID } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

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
  } else if (++sequence > 0xfff) {
    // More than 4,096 ids in one ms (or the clock went back): borrow the next ms, as the RFC allows.
    lastMs++;
    sequence = 0;
  }
  // randomUUID's last 17 characters are random apart from the variant bits, which v7 shares with v4.
  return `${idTimePrefix(lastMs)}-7${sequence.toString(16).padStart(3, '0')}-${randomUUID().slice(19)}`;
}

/** The start of the ids made at `ms`: every id made before then sorts below it, every id made from then on above. */
export function idTimePrefix(ms: number): string {
  const time = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}`;
}
