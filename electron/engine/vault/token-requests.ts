import { z } from 'zod';
import { validateContainer } from '../access/containers';
import { ApiProblem } from '../server/problem';
import { unsupported } from '../server/validation';
import { EXPIRY_FORMATS, parseExpiryInstant } from './instants';

/** Metadata maps strings to `value`s. A `__proto__` key, which zod would drop silently, is refused. */
const metadata = <V extends z.ZodType>(value: V) =>
  z
    .unknown()
    .refine((input) => typeof input !== 'object' || input === null || !Object.hasOwn(input, '__proto__'), {
      error: 'Metadata key __proto__ is not allowed',
    })
    .pipe(z.record(z.string(), value, { error: 'Metadata must be an object whose values are strings' }));

/** A token's expiry in any documented format, as the ISO 8601 UTC instant it names. */
const expiresAt = z.string({ error: `expires_at must be ${EXPIRY_FORMATS}` }).transform((text, ctx) => {
  const instant = parseExpiryInstant(text.trim());
  if (instant) return new Date(instant.ms).toISOString();
  ctx.issues.push({ code: 'custom', message: `expires_at must be ${EXPIRY_FORMATS}`, input: text });
  return z.NEVER;
});

/** The body of POST /tokens (and each token request inside POST /tokenize), as docs/api.md, Tokens, lists it. */
export const createTokenRequest = z.object({
  id: z.string().optional(),
  type: z.string({ error: 'Token type is required' }),
  data: z.unknown(),
  mask: z.unknown().optional(),
  containers: z.array(z.string()).min(1, 'At least one container is required').optional(),
  metadata: metadata(z.string({ error: 'Metadata values must be strings' })).optional(),
  search_indexes: z.array(z.string()).max(20).optional(),
  fingerprint_expression: z.string().optional(),
  deduplicate_token: z.boolean().optional(),
  expires_at: expiresAt.nullable().optional(),
  // Obsolete in the hosted API; accepted and ignored so old clients keep working.
  privacy: z.unknown().optional(),
  // Where a conversion is accepted (POST /tokens, /tokenize) its own schema reads the body instead.
  token_intent_id: unsupported('token_intent_id converts a token intent through POST /tokens or /tokenize: here, send the type and data'),
  encrypted: unsupported('Only POST /tokens, POST /tokenize and POST /token-intents take encrypted data: send data here'),
});
export type CreateTokenRequest = z.infer<typeof createTokenRequest>;

/**
 * What a client sends to POST /tokens (and in POST /tokenize): a token request whose data may instead come encrypted
 * with a client encryption key (a JWE), opened into `data` before the token is made.
 */
export const clientTokenRequest = createTokenRequest.extend({
  // Absent data is the vault's to refuse ("Token data is required"), once any encrypted data is opened into it.
  data: z.unknown().optional(),
  encrypted: z.string({ error: 'encrypted must be a JWE string' }).nullable().optional(),
});

const FROM_THE_INTENT = 'type and data come from the token intent: leave them out beside token_intent_id';

/**
 * POST /tokens (or a /tokenize element) converting a token intent: the create fields but `type` and `data`, which the
 * intent supplies (docs/api.md, Token intents).
 */
export const intentConversionRequest = createTokenRequest.extend({
  token_intent_id: z.string({ error: 'token_intent_id must be a token intent id' }).min(1, 'token_intent_id must be a token intent id'),
  type: unsupported(FROM_THE_INTENT),
  data: unsupported(FROM_THE_INTENT),
  encrypted: unsupported(FROM_THE_INTENT),
});
export type IntentConversionRequest = z.infer<typeof intentConversionRequest>;

/**
 * A token request as POST /tokens and /tokenize read it: a conversion when it names a token intent, else `plain`
 * (POST /tokens reads `encrypted` itself; /tokenize's requests come already opened).
 */
export const tokenOrConversion = <P extends typeof createTokenRequest | typeof clientTokenRequest>(body: unknown, plain: P) =>
  typeof body === 'object' && body !== null && 'token_intent_id' in body && body.token_intent_id !== null && body.token_intent_id !== undefined
    ? intentConversionRequest
    : plain;

export const isConversion = <T extends { token_intent_id?: unknown }>(input: T | IntentConversionRequest): input is IntentConversionRequest =>
  typeof input.token_intent_id === 'string';

/**
 * PATCH /tokens/{id}: a JSON merge patch (RFC 7386) over the same fields. `null` removes: metadata entries, or the
 * whole field, which then takes its default. `type` and `id` are read so that a change to either can be refused.
 */
export const updateTokenRequest = createTokenRequest.omit({ privacy: true }).extend({
  id: z.unknown().optional(),
  type: z.unknown().optional(),
  data: z.unknown().optional(),
  metadata: metadata(z.string({ error: 'Metadata values must be strings or null' }).nullable()).nullable().optional(),
  mask: z.unknown().optional(),
  containers: createTokenRequest.shape.containers.nullable(),
  search_indexes: createTokenRequest.shape.search_indexes.nullable(),
  fingerprint_expression: createTokenRequest.shape.fingerprint_expression.nullable(),
  deduplicate_token: z
    .boolean()
    .nullable()
    .optional()
    .refine((deduplicate) => deduplicate !== true, { error: 'Tokenbench deduplicates on create only: leave deduplicate_token out of updates' }),
});
export type UpdateTokenRequest = z.infer<typeof updateTokenRequest>;

/**
 * A page number or size, from a query string or a JSON body: a number, or a string of decimal digits. An empty query
 * value (`?page=`) is the default, as if absent; `0x2` or `2.5` is refused, not read as something else.
 */
function wholeNumber(label: string, min: number, max: number, fallback: number) {
  const error = `${label} must be a whole number from ${min} to ${max}`;
  return z.preprocess(
    (value) => (value === '' ? undefined : typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value),
    z.int({ error }).min(min, { error }).max(max, { error }).default(fallback),
  );
}

const pageNumber = wholeNumber('page', 1, 1_000_000_000, 1);
const pageSize = wholeNumber('size', 1, 100, 20);

const CURSOR_PAGING = 'start (cursor paging) is not supported by the v1 endpoints: they page by page and size; the v2 ones take start';

export const searchV1Request = z.object({
  query: z.string().default(''),
  page: pageNumber,
  size: pageSize,
  start: unsupported(CURSOR_PAGING),
});

export const searchV2Request = z.object({
  query: z.string().default(''),
  start: z.string().optional(),
  size: pageSize,
});

/** GET /tokens; `id` repeats, so the route reads it from the query itself. */
export const listV1Query = z.object({
  page: pageNumber,
  size: pageSize,
  start: unsupported(CURSOR_PAGING),
  // The vendor's v1 list filtered by type until its docs dropped the filter (January 2024); whether it still does is
  // unknown, so a client relying on it learns now instead of in production.
  type: unsupported('type is no longer a filter of the v1 list (the vendor dropped it in 2024): use GET /v2/tokens?type= or filter the results'),
});

export const listV2Query = z.object({
  start: z.string().optional(),
  size: pageSize,
  container: z
    .string()
    .check((ctx) => {
      const problem = validateContainer(ctx.value);
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
    })
    .optional(),
  type: z.string().optional(),
  fingerprint: z.string().optional(),
});

const METADATA_PREFIX = 'metadata.';
const METADATA_JSON = 'metadata must be a JSON object of strings, e.g. {"customer_id":"cus_12345"}, or go as metadata.<key>=value';

const badQuery = (name: string, message: string) => new ApiProblem(400, `${name}: ${message}`, { [name]: [message] });

/** The `metadata={"key":"value"}` parameter as pairs; anything else in it is a 400, never a filter dropped. */
function jsonMetadata(text: string): [string, string][] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badQuery('metadata', METADATA_JSON);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badQuery('metadata', METADATA_JSON);
  const pairs = Object.entries(value);
  if (pairs.some(([, v]) => typeof v !== 'string')) throw badQuery('metadata', METADATA_JSON);
  return pairs as [string, string][];
}

/**
 * The metadata filter of GET /tokens and GET /v2/tokens, written `metadata.<key>=value` (the vendor's docs) or
 * `metadata={"key":"value"}` (what its node SDK sends). `repeats`: what a key given twice does; v1 ignores the
 * repeat, as its docs say, v2 refuses it, as its docs allow each parameter once.
 */
export function metadataFilter(query: URLSearchParams, repeats: 'ignore' | 'refuse'): Record<string, string> {
  const pairs = query.getAll('metadata').flatMap(jsonMetadata);
  for (const [name, value] of query) if (name.startsWith(METADATA_PREFIX) && name.length > METADATA_PREFIX.length) pairs.push([name.slice(METADATA_PREFIX.length), value]);
  const metadata = new Map<string, string>();
  for (const [key, value] of pairs) {
    if (!metadata.has(key)) metadata.set(key, value);
    else if (repeats === 'refuse') throw badQuery(`${METADATA_PREFIX}${key}`, 'may be given once');
  }
  return Object.fromEntries(metadata);
}

/** Refuses a query parameter given more than once, for the endpoints whose docs allow each once (v2 list). */
export function requireSingleValues(query: URLSearchParams): void {
  for (const name of new Set(query.keys())) if (query.getAll(name).length > 1) throw badQuery(name, 'may be given once');
}
