/** The hosted service's webhook event types (vendor list), sorted: what `GET /webhooks/event-types` answers. */
export const EVENT_TYPES = [
  '3ds.session.authenticated',
  '3ds.session.challenge-completed',
  '3ds.session.challenge-result-retrieved',
  '3ds.session.created',
  '3ds.session.decoupled-challenge-notification',
  '3ds.session.method-completed',
  'account-updater.job.completed',
  'account-updater.job.created',
  'account-updater.job.failed',
  'application.created',
  'application.deleted',
  'application.key.created',
  'application.key.deleted',
  'application.updated',
  'google-pay.created',
  'google-pay.deleted',
  'google-pay.retrieved',
  'http.request',
  'network-token.created',
  'network-token.cryptogram.created',
  'network-token.deleted',
  'network-token.updated',
  'proxy.created',
  'proxy.deleted',
  'proxy.invoked',
  'proxy.updated',
  'reactor.completed',
  'reactor.created',
  'reactor.deleted',
  'reactor.failed',
  'reactor.invoked',
  'reactor.updated',
  'session.authorized',
  'session.created',
  'tenant.created',
  'tenant.deleted',
  'tenant.invitation.accepted',
  'tenant.invitation.created',
  'tenant.invitation.deleted',
  'tenant.invitation.resent',
  'tenant.member.created',
  'tenant.member.deleted',
  'tenant.updated',
  'token-intent.converted',
  'token-intent.created',
  'token-intent.deleted',
  'token.created',
  'token.deleted',
  'token.expired',
  'token.property.expired',
  'token.read',
  'token.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);

/**
 * The event type a subscription names, or undefined for none: the node SDK's examples write `token:created`, the
 * vendor's docs `token.created`; both are accepted and kept with dots.
 */
export function eventTypeOf(name: string): EventType | undefined {
  const dotted = name.replaceAll(':', '.');
  return KNOWN.has(dotted) ? (dotted as EventType) : undefined;
}
