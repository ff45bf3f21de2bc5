/**
 * Webhooks (docs/api.md, Webhooks; vendor-surfaces.md §5): what is stored of one, what a create or replace asks for,
 * and the object the wire answers.
 */
import { z } from 'zod';
import { eventTypeOf, type EventType } from '../events/event-types';
import { parseDestinationUrl } from '../proxy/destination-url';
import { parseWith } from '../server/validation';

/** The vendor's limit per tenant: a sixth is refused. */
export const MAX_WEBHOOKS = 5;

export type WebhookStatus = 'enabled' | 'disabled';

export interface StoredWebhook {
  id: string;
  name: string;
  url: string;
  notify_email: string | null;
  events: EventType[];
  status: WebhookStatus;
  created_by: string;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
}

/** What POST and PUT /webhooks take, checked; `status` only a replace reads (absent: kept). */
export interface WebhookDefinition {
  name: string;
  url: string;
  notify_email: string | null;
  events: EventType[];
  status?: WebhookStatus;
}

const webhookRequest = z.object({
  name: z.string({ error: 'name is required' }).trim().min(1, 'name is required').max(200, 'name must be at most 200 characters'),
  url: z.string({ error: 'url is required' }).transform((value, ctx) => {
    const url = parseDestinationUrl(value);
    if (typeof url !== 'string') return url.href;
    ctx.issues.push({ code: 'custom', message: `url ${url}`, input: value });
    return z.NEVER;
  }),
  notify_email: z.email('notify_email must be an e-mail address').max(320).nullish(),
  events: z
    .array(
      z.string().transform((name, ctx) => {
        const type = eventTypeOf(name);
        if (type !== undefined) return type;
        ctx.issues.push({ code: 'custom', message: `${name} is not an event type (GET /webhooks/event-types lists them)`, input: name });
        return z.NEVER;
      }),
      { error: 'events is required: a list of event types' },
    )
    .min(1, 'events must name at least one event type'),
  status: z.enum(['enabled', 'disabled'], { error: 'status must be enabled or disabled' }).optional(),
});

/** The body of POST or PUT /webhooks (or the workbench's) checked whole: a 400 naming each field it refuses. */
export function parseWebhookRequest(body: unknown, replace: boolean): WebhookDefinition {
  const { status, notify_email, events, ...fields } = parseWith(webhookRequest, body, '', 'brackets');
  return { ...fields, notify_email: notify_email ?? null, events: [...new Set(events)], ...(replace && status ? { status } : {}) };
}

/** The webhook object of the wire (§5.3): modified_* absent until the first change, notify_email when given. */
export function webhookView(webhook: StoredWebhook, tenantId: string) {
  const { id, status, name, url, notify_email, events, created_by, created_at, modified_by, modified_at } = webhook;
  return {
    id,
    tenant_id: tenantId,
    status,
    name,
    url,
    ...(notify_email === null ? {} : { notify_email }),
    events,
    created_by,
    created_at,
    ...(modified_at === null ? {} : { modified_by, modified_at }),
  };
}

/** What the hosted service would not do for this URL, shown beside the webhook in the workbench. */
export function webhookWarnings(url: string): string[] {
  const { protocol, hostname } = new URL(url);
  const warnings: string[] = [];
  if (protocol === 'http:') warnings.push('the URL uses http; the hosted service delivers only to https');
  if (hostname === 'localhost' || /^(127\.|\[::1\])/.test(hostname)) warnings.push('the URL is this machine; the hosted service cannot reach it');
  return warnings;
}
