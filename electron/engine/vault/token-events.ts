import type { EventCause, EventOutbox } from '../events/event-outbox';

/** token.read for each token a request read or detokenized, stored with the turn's other reads. */
export function raiseRead(outbox: EventOutbox, tokens: Iterable<{ id: string; type: string }>, cause: EventCause): void {
  if (!outbox.wants('token.read')) return;
  for (const { id, type } of tokens) outbox.raiseSoon({ type: 'token.read', data: () => ({ token: { id, type } }), ...cause });
}
