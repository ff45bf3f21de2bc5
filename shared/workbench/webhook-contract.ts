import { z } from 'zod';

/**
 * Webhooks as the workbench manages them (docs/api.md, Webhooks). The shape is checked here; what the fields mean (an
 * event type that exists, a URL the destination policy allows) the engine checks as POST and PUT /webhooks do, naming
 * each field it refuses.
 */

const webhookFields = {
  name: z.string().max(1000),
  url: z.string().max(8 * 1024),
  notify_email: z.string().max(320).nullable(),
  /** Event types (GET /webhooks/event-types); `token:created` is read as `token.created`. */
  events: z.array(z.string().max(200)).max(100),
};

export const newWebhookSchema = z.strictObject(webhookFields);
/** A replace: `enabled` re-enables a webhook the service disabled after repeated failure. */
export const webhookChangeSchema = z.strictObject({ id: z.string().min(1).max(200), ...webhookFields, status: z.enum(['enabled', 'disabled']) });
export const webhookRefSchema = z.strictObject({ id: z.string().min(1).max(200) });

export const webhookViewSchema = z.object({
  id: z.string(),
  ...webhookFields,
  status: z.enum(['enabled', 'disabled']),
  created_at: z.string(),
  modified_at: z.string().nullable(),
  /** What the hosted service would not do for this URL (http, this machine). */
  warnings: z.array(z.string()),
});
export type WebhookView = z.output<typeof webhookViewSchema>;

/** The webhooks, with what a new one may subscribe to and how many a tenant may have. */
export const webhookListSchema = z.object({
  webhooks: z.array(webhookViewSchema),
  event_types: z.array(z.string()),
  max_webhooks: z.number(),
});

export const deliveryQuerySchema = z.strictObject({
  /** The webhook whose deliveries to list. */
  id: z.string().min(1).max(200),
  limit: z.number().int().min(1).max(100).default(50),
});

/**
 * One event sent (or being sent) to one webhook: `pending` until a 2xx or its last attempt; `exhausted` when every
 * attempt failed. `body` is the last attempt's body as sent (events carry no token data), null before the first.
 */
export const deliveryViewSchema = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  state: z.enum(['pending', 'delivered', 'exhausted']),
  attempts: z.number(),
  last_status: z.number().nullable(),
  latency_ms: z.number().nullable(),
  error: z.string().nullable(),
  body: z.string().nullable(),
  created_at: z.string(),
  attempted_at: z.string().nullable(),
  /** When a pending delivery is tried next; null once it is finished. */
  next_attempt_at: z.string().nullable(),
});
export type DeliveryView = z.output<typeof deliveryViewSchema>;

export const redeliverySchema = z.strictObject({ delivery_id: z.string().min(1).max(200) });

/** The public key receivers verify PFX-SIGNATURE with, and where the service serves it. */
export const webhookKeySchema = z.object({ public_key_pem: z.string(), url: z.string() });
