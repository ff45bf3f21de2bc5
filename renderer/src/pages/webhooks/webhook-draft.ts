import type { WebhookView } from '../../../../shared/workbench/webhook-contract';

/** A webhook as its form edits it: the e-mail as typed ('' for none), the events chosen. */
export interface WebhookDraft {
  name: string;
  url: string;
  notify_email: string;
  events: string[];
}

export interface WebhookDefinition {
  name: string;
  url: string;
  notify_email: string | null;
  events: string[];
}

/** Where a new webhook points first: a receiver on this machine, as the snippet below the form runs one. */
const FIRST_URL = 'http://localhost:3000/hooks';

export const draftOf = (webhook: WebhookView | null): WebhookDraft => ({
  name: webhook?.name ?? '',
  url: webhook?.url ?? FIRST_URL,
  notify_email: webhook?.notify_email ?? '',
  events: webhook?.events ?? ['token.created'],
});

/** The definition to save; the engine checks every field (the URL under the destination policy) and names what it refuses. */
const definitionOf = (draft: WebhookDraft): { definition: WebhookDefinition } => ({
  definition: { name: draft.name, url: draft.url.trim(), notify_email: draft.notify_email.trim() === '' ? null : draft.notify_email.trim(), events: draft.events },
});

const sameDraft = (a: WebhookDraft, b: WebhookDraft) => JSON.stringify({ ...a, events: [...a.events].sort() }) === JSON.stringify({ ...b, events: [...b.events].sort() });

/** The Webhooks page's drafts, as its form turns them into definitions and back. */
export const WEBHOOK_DRAFTS = { of: draftOf, same: sameDraft, definition: definitionOf };

/** An event type's family: what comes before its first dot (`token` of `token.created`, `application` of `application.key.created`). */
export const familyOf = (type: string): string => type.slice(0, type.indexOf('.'));

/** The event types by family, in the order served. */
export function byFamily(types: readonly string[]): [string, string[]][] {
  const families = new Map<string, string[]>();
  for (const type of types) families.set(familyOf(type), [...(families.get(familyOf(type)) ?? []), type]);
  return [...families];
}
