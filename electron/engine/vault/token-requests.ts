import { z } from 'zod';

/** The body of POST /tokens (and each token request inside POST /tokenize), as the wire contract §3 lists it. */
export const createTokenRequest = z.object({
  id: z.string().optional(),
  type: z.string({ error: 'Token type is required' }),
  data: z.unknown(),
  mask: z.unknown().optional(),
  containers: z.array(z.string()).min(1, 'At least one container is required').optional(),
  metadata: z.record(z.string(), z.string({ error: 'Metadata values must be strings' })).optional(),
  search_indexes: z.array(z.string()).max(20).optional(),
  fingerprint_expression: z.string().optional(),
  deduplicate_token: z.boolean().optional(),
  expires_at: z.iso.datetime({ offset: true, error: 'expires_at must be an ISO 8601 date-time' }).nullable().optional(),
  // Obsolete in the hosted API; accepted and ignored so old clients keep working.
  privacy: z.unknown().optional(),
});
export type CreateTokenRequest = z.infer<typeof createTokenRequest>;

/** PATCH /tokens/{id}: a JSON merge patch (RFC 7386) over the same fields; type and id cannot change. */
export const updateTokenRequest = createTokenRequest.omit({ id: true, type: true, privacy: true }).extend({
  data: z.unknown().optional(),
  metadata: z.record(z.string(), z.string().nullable()).nullable().optional(),
  mask: z.unknown().optional(),
});
export type UpdateTokenRequest = z.infer<typeof updateTokenRequest>;

const pageSize = z.coerce.number().int().min(1).max(100).default(20);

export const searchV1Request = z.object({
  query: z.string().default(''),
  page: z.coerce.number().int().min(1).default(1),
  size: pageSize,
});

export const searchV2Request = z.object({
  query: z.string().default(''),
  start: z.string().optional(),
  size: pageSize,
});

export const listV1Query = z.object({
  page: z.coerce.number().int().min(1).default(1),
  size: pageSize,
});

export const listV2Query = z.object({
  start: z.string().optional(),
  size: pageSize,
  container: z.string().optional(),
  type: z.string().optional(),
  fingerprint: z.string().optional(),
});
