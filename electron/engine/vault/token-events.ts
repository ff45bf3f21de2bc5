import type { EventCause, EventOutbox } from '../events/event-outbox';

/** token.read for each token a request read or detokenized, stored with the turn's other reads. */
export function raiseRead(outbox: EventOutbox, tokens: Iterable<{ id: string; type: string }>, cause: EventCause): void {
  outbox.raiseReads(tokens, cause);
}
