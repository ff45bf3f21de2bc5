import { z } from 'zod';

/**
 * What the Tokens page reads from the engine and asks of it (the other domains have their *-contract.ts beside this one). Token
 * data crosses this boundary masked or not at all; plaintext only in a reveal's answer, which the user asked for.
 */

const applicationId = z.string().min(1).max(200);
const tokenId = z.string().min(1).max(400);
const transactionId = z.string().min(1).max(200);
const transformSchema = z.enum(['mask', 'reveal', 'redact']);

/** The `card` object of card tokens: no more of the number than the API shows every reader. */
export const cardSummarySchema = z.object({
  bin: z.string(),
  last4: z.string(),
  expiration_month: z.number().nullable(),
  expiration_year: z.number().nullable(),
  brand: z.string().nullable(),
});

/** A token as the workbench shows it: every field of the API's token object, `data` masked or absent (redacted). */
export const tokenViewSchema = z.object({
  id: z.string(),
  tenant_id: z.string(),
  type: z.string(),
  data: z.unknown().optional(),
  mask: z.unknown(),
  containers: z.array(z.string()),
  metadata: z.record(z.string(), z.string()).optional(),
  search_indexes: z.array(z.string()),
  fingerprint: z.string().nullable(),
  fingerprint_expression: z.string().nullable(),
  expires_at: z.string().nullable(),
  card: cardSummarySchema.optional(),
  created_by: z.string().nullable(),
  created_at: z.string(),
  modified_by: z.string().nullable(),
  modified_at: z.string().nullable(),
});
export type TokenView = z.output<typeof tokenViewSchema>;

/** The quick filters on expiry: tokens that expire, that never do, or that expire within a day. */
export const TOKEN_EXPIRY_FILTERS = ['expires', 'never', 'within_day'] as const;
export type TokenExpiryFilter = (typeof TOKEN_EXPIRY_FILTERS)[number];

/** The most tokens one page of the list holds. */
export const TOKEN_PAGE_MAX = 500;

/** A page of the Tokens list, as an application searches the vault: newest first. */
export const tokenSearchSchema = z.strictObject({
  application_id: applicationId,
  /**
   * The service's search language, as POST /v2/tokens/search takes it, plus the card fields and words typed alone
   * (token-search-fields.ts); blank matches every token.
   */
  query: z.string().max(10_000).default(''),
  type: z.string().min(1).max(100).optional(),
  /** This container or any below it. */
  container: z.string().min(1).max(1000).optional(),
  expiry: z.enum(TOKEN_EXPIRY_FILTERS).optional(),
  /** Only the tokens this transaction created: committed ones, or staged ones while it is open. */
  transaction_id: transactionId.optional(),
  /** Only these tokens, if they match: how the live list re-reads what changed. */
  ids: z.array(tokenId).min(1).max(TOKEN_PAGE_MAX).optional(),
  /** The page after this one (`next` of the page before). */
  cursor: z.string().min(1).max(2000).optional(),
  limit: z.number().int().min(1).max(TOKEN_PAGE_MAX).default(100),
});
export type TokenSearch = z.input<typeof tokenSearchSchema>;

/** A write an open transaction holds: no reader outside it sees it until the commit. */
export const stagedOperationSchema = z.object({
  transaction_id: z.string(),
  operation: z.enum(['create', 'update', 'delete']),
});
export type StagedOperation = z.output<typeof stagedOperationSchema>;

export const stagedTokenSchema = z.object({ token: tokenViewSchema, staged: stagedOperationSchema });
export type StagedToken = z.output<typeof stagedTokenSchema>;

export const tokenPageSchema = z.object({
  /** Every token the search matches, not only this page's. */
  total: z.number().int().nonnegative(),
  next: z.string().nullable(),
  tokens: z.array(tokenViewSchema),
  /** On the first page: the writes open transactions hold that match the filters. */
  staged: z.array(stagedTokenSchema),
  /** Staged tokens left out because a query was given: the search language runs in the vault, which they are not in yet. */
  staged_unsearched: z.number().int().nonnegative(),
  /**
   * Tokens from before card search whose card details and metadata values cannot be found yet: the first start after
   * the upgrade indexes them in the background. 0 once done.
   */
  unindexed: z.number().int().nonnegative(),
});
export type TokenPage = z.output<typeof tokenPageSchema>;

/** One token, read as an application (inside a transaction when one is named). */
export const tokenQuerySchema = z.strictObject({
  application_id: applicationId,
  token_id: tokenId,
  transaction_id: transactionId.optional(),
});

export const tokenDetailSchema = z.object({
  token: tokenViewSchema,
  /** What the application's read gives: mask, redact, or reveal (which this view still shows masked). */
  read_transform: transformSchema,
  staged: stagedOperationSchema.nullable(),
  /** Tokens of the same type and fingerprint that the application may read, newest first (deduplication's finds). */
  same_fingerprint: z.object({ total: z.number().int().nonnegative(), tokens: z.array(tokenViewSchema) }),
});
export type TokenDetail = z.output<typeof tokenDetailSchema>;

/** What an application would get of a token: under its own access rules, or under a draft of them (a preview). */
export const readAsQuerySchema = tokenQuerySchema.extend({
  draft: z.strictObject({ permissions: z.array(z.string()).max(100), rules: z.array(z.unknown()).max(100) }).optional(),
});
export type ReadAsQuery = z.input<typeof readAsQuerySchema>;

const accessRuleSchema = z.object({
  description: z.string(),
  priority: z.number(),
  container: z.string(),
  transform: transformSchema,
  permissions: z.array(z.string()),
});

/** How the access rules decide one permission on a token. */
export const accessDecisionSchema = z.object({
  permission: z.string(),
  /** null: refused. */
  transform: transformSchema.nullable(),
  /** Why, in a sentence. */
  reason: z.string(),
  /** Per container of the token, the rule that decides; null where none grants the permission. */
  containers: z.array(z.object({ container: z.string(), rule: accessRuleSchema.nullable(), bare: z.boolean() })),
});
export type AccessDecision = z.output<typeof accessDecisionSchema>;

export const readAsSchema = z.object({
  application: z.object({ id: z.string(), name: z.string(), type: z.string() }),
  /** The read, with the data it gives when that is masked (plaintext is said, not sent). */
  read: accessDecisionSchema.extend({ data: z.unknown().optional() }),
  /** Whether the proxy would detokenize it for this application. */
  use: accessDecisionSchema,
  /** The other token permissions, for the whole picture. */
  others: z.array(accessDecisionSchema),
});
export type ReadAs = z.output<typeof readAsSchema>;

/**
 * The explicit reveal of one token's data as an application: only where its rules let it read the plaintext itself
 * (token:read as POST /detokenize applies it, where bare permissions reveal); refused, saying why, where they mask.
 */
export const revealTokenQuerySchema = z.strictObject({ application_id: applicationId, token_id: tokenId, transaction_id: transactionId.optional() });
/** Plaintext, for the one view that asked; never stored in the page's state. */
export const revealedTokenSchema = z.object({ data: z.unknown() });

/** The most token requests one POST /tokenize takes. */
export const TOKENIZE_BATCH_MAX = 100;

/** A create request or merge patch, as the API takes it; the API validates it. */
const tokenFieldsSchema = z.record(z.string(), z.unknown());
const writeAs = { application_id: applicationId, transaction_id: transactionId.optional() };

/** A change to the vault, sent through the service's front door as the application, so history records it as a client's. */
export const tokenWriteSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('create'), ...writeAs, token: tokenFieldsSchema }),
  z.strictObject({ action: z.literal('create_many'), ...writeAs, tokens: z.array(tokenFieldsSchema).min(1).max(TOKENIZE_BATCH_MAX) }),
  z.strictObject({ action: z.literal('update'), ...writeAs, token_id: tokenId, patch: tokenFieldsSchema }),
  z.strictObject({ action: z.literal('delete'), ...writeAs, token_id: tokenId }),
  /** POST /token-intents: the type and data, nothing else (an intent is in no transaction). */
  z.strictObject({ action: z.literal('create_intent'), application_id: applicationId, intent: tokenFieldsSchema }),
  z.strictObject({ action: z.literal('delete_intent'), application_id: applicationId, intent_id: tokenId }),
]);
export type TokenWrite = z.input<typeof tokenWriteSchema>;

/** How a write went: the API's status and, never its body (which may hold data), the ids it named or its problem. */
export const tokenWriteResultSchema = z.object({
  /** null when the service could not be reached. */
  status: z.number().int().nullable(),
  /** The tokens' ids; for an intent's create or delete, the intent's. */
  token_ids: z.array(z.string()),
  /** A create with deduplicate_token found an existing token. */
  deduplicated: z.boolean(),
  /** Why it failed, as the API said: its detail, and messages by field (`data.number`, `[3].data.number`). */
  problem: z.object({ detail: z.string(), errors: z.record(z.string(), z.array(z.string())).optional() }).nullable(),
  /** Finds the request in History. */
  trace_id: z.string().nullable(),
});
export type TokenWriteResult = z.output<typeof tokenWriteResultSchema>;

/** A token created, changed or deleted in the vault: its id only, for the live list to re-read. */
export const tokenChangeSchema = z.object({ id: z.string(), change: z.enum(['created', 'changed', 'deleted']) });
export type TokenChange = z.output<typeof tokenChangeSchema>;

/** The token changes of one live update; `more`: there were too many to list, so read the list again. */
export const tokenChangesSchema = z.object({ changes: z.array(tokenChangeSchema), more: z.boolean() });

/** A key as history names one it revealed: whose, which, and its last four characters. */
const revealedKeySchema = z.object({ application_id: z.string(), key_id: z.string().nullable(), key_last4: z.string() });

/**
 * What a workbench reveal recorded in history: what was revealed, by id (a key by its last four characters), never
 * the value, and in a sentence. Entries older than the sentence have none.
 */
export const revealRecordSchema = z.discriminatedUnion('target', [
  /** A token's data, as the application named (absent in older entries). */
  z.object({ target: z.literal('token'), token_id: z.string(), application_id: z.string().optional(), summary: z.string().optional() }),
  /** The body a proxied request sent to its destination. */
  z.object({ target: z.literal('outbound'), entry_id: z.string(), token_ids: z.array(z.string()), summary: z.string().optional() }),
  /** A composed request's answer, with the values it repeats of the request's tokens. */
  z.object({ target: z.literal('answer'), entry_id: z.string(), token_ids: z.array(z.string()), summary: z.string() }),
  /** Keys written out whole: the workbench's key in a snippet, a new vault's first keys. */
  z.object({ target: z.literal('keys'), keys: z.array(revealedKeySchema), summary: z.string() }),
  /** A seed file: its export keys, and the tokens whose plaintext it holds (their ids when few, else null). */
  z.object({ target: z.literal('seed'), keys: z.array(revealedKeySchema), token_count: z.number().int(), token_ids: z.array(z.string()).nullable(), summary: z.string() }),
  /** A secret's value, by the secret's name. */
  z.object({ target: z.literal('secret'), name: z.string(), summary: z.string().optional() }),
]);
export type RevealRecord = z.output<typeof revealRecordSchema>;
