import { z } from 'zod';

/** How the engine is set up, as Settings shows and changes it: its limits, history's retention and answers, the collections folder. */

/** A limit Settings may change: what applies, its default, what Settings saved, and the start flag that outranks it. */
const limitStateSchema = <V extends z.ZodType>(value: V) =>
  z.object({
    value,
    default: value,
    /** Saved in the vault by Settings; null: none saved. */
    stored: value.nullable(),
    /** The `serve` flag given at start, with its value: it wins over what is saved. Null when none was given. */
    pinnedBy: z.string().nullable(),
  });

/** The proxy's limits that apply without a restart (docs/api.md, Limits). */
export const PROXY_LIMITS = {
  proxyTimeoutMs: z.number().int().min(1).max(3_600_000),
  maxBodyBytes: z.number().int().min(1).max(256 * 1024 * 1024),
  maxExpressions: z.number().int().min(0).max(100_000),
  denyPrivateDestinations: z.boolean(),
};

/** How much request history the engine keeps (docs/api.md, Limits). */
export const HISTORY_RETENTION = {
  historyLimit: z.number().int().min(1).max(1_000_000),
  /** 0 keeps entries whatever their age. */
  historyMaxAgeDays: z.number().int().min(0).max(36_500),
};

/** Whether history keeps the destinations' answers to the proxy, and up to what size (docs/api.md, Limits). */
export const HISTORY_ANSWERS = {
  historyAnswers: z.boolean(),
  historyAnswerBytes: z.number().int().min(1024).max(1024 * 1024),
};

/** How long a new token intent lives, in seconds: 24 h by default, at most 48 h, the vendor's quota (docs/api.md, Token intents). */
export const TOKEN_INTENT_TTL = {
  tokenIntentTtlSeconds: z.number().int().min(1).max(48 * 60 * 60),
};

/** How many hours `GET /logs` keeps its lines: 24 by default, the vendor's quota; at most 30 days (docs/api.md, Logs). */
export const LOG_RETENTION = {
  logRetentionHours: z.number().int().min(1).max(30 * 24),
};

/** How the engine is set up, as the Settings page shows it and the pages that explain a limit read it. */
export const engineSettingsSchema = z.object({
  /** Lifetime of a transaction (`serve --transaction-ttl`); it is rolled back when it runs out. */
  transactionTtlSeconds: z.number().int().positive(),
  /** This workbench's address for a browser, with its session; null when the engine does not serve it. */
  workbenchUrl: z.string().nullable(),
  limits: z.object({
    proxyTimeoutMs: limitStateSchema(PROXY_LIMITS.proxyTimeoutMs),
    maxBodyBytes: limitStateSchema(PROXY_LIMITS.maxBodyBytes),
    maxExpressions: limitStateSchema(PROXY_LIMITS.maxExpressions),
    denyPrivateDestinations: limitStateSchema(PROXY_LIMITS.denyPrivateDestinations),
  }),
  retention: z.object({
    historyLimit: limitStateSchema(HISTORY_RETENTION.historyLimit),
    historyMaxAgeDays: limitStateSchema(HISTORY_RETENTION.historyMaxAgeDays),
  }),
  /** Where saved requests and environments are kept: the folder now, its default, Settings' choice, and the start flag that outranks it. */
  collections: z.object({ folder: z.string(), default: z.string(), stored: z.string().nullable(), pinnedBy: z.string().nullable() }),
  answers: z.object({
    historyAnswers: limitStateSchema(HISTORY_ANSWERS.historyAnswers),
    historyAnswerBytes: limitStateSchema(HISTORY_ANSWERS.historyAnswerBytes),
  }),
  tokenIntents: z.object({ tokenIntentTtlSeconds: limitStateSchema(TOKEN_INTENT_TTL.tokenIntentTtlSeconds) }),
  /** Whether DELETE /tenants/self may wipe the vault (`serve --allow-tenant-delete`): an engine setting, not the tenant's. */
  tenantDelete: z.object({ allowTenantDelete: limitStateSchema(z.boolean()) }),
  logs: z.object({ logRetentionHours: limitStateSchema(LOG_RETENTION.logRetentionHours) }),
});

/** A folder to keep saved requests in from now on (a whole path, or from ~/), or null to go back to the default. */
export const collectionsFolderChangeSchema = z.strictObject({ folder: z.string().trim().min(1).max(4096).nullable() });

/** A change to the limits: a value to save and apply, or null to go back to the default. */
export const limitsChangeSchema = z.strictObject({
  proxyTimeoutMs: PROXY_LIMITS.proxyTimeoutMs.nullable().optional(),
  maxBodyBytes: PROXY_LIMITS.maxBodyBytes.nullable().optional(),
  maxExpressions: PROXY_LIMITS.maxExpressions.nullable().optional(),
  denyPrivateDestinations: PROXY_LIMITS.denyPrivateDestinations.nullable().optional(),
});
/** A change to the history's retention, likewise. */
export const retentionChangeSchema = z.strictObject({
  historyLimit: HISTORY_RETENTION.historyLimit.nullable().optional(),
  historyMaxAgeDays: HISTORY_RETENTION.historyMaxAgeDays.nullable().optional(),
});
/** A change to whether history keeps answers, likewise. */
export const historyAnswersChangeSchema = z.strictObject({
  historyAnswers: HISTORY_ANSWERS.historyAnswers.nullable().optional(),
  historyAnswerBytes: HISTORY_ANSWERS.historyAnswerBytes.nullable().optional(),
});
/** A change to how long new token intents live, likewise. */
export const tokenIntentTtlChangeSchema = z.strictObject({
  tokenIntentTtlSeconds: TOKEN_INTENT_TTL.tokenIntentTtlSeconds.nullable().optional(),
});
/** A change to how long log lines are kept, likewise. */
export const logRetentionChangeSchema = z.strictObject({
  logRetentionHours: LOG_RETENTION.logRetentionHours.nullable().optional(),
});
export type EngineSettings = z.output<typeof engineSettingsSchema>;
