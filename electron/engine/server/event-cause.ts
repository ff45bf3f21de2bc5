import { actorOf } from '../access/authenticator';
import type { EventCause } from '../events/event-outbox';
import type { RequestContext } from './route-types';

/** A request as the cause of the events it raises: its caller (none on a call that needs no key) and its trace id. */
export function causeOf(ctx: RequestContext): EventCause {
  const caller = ctx.caller as RequestContext['caller'] | undefined;
  return { actor: caller && actorOf(caller), traceId: ctx.traceId };
}
