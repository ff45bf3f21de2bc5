import { z } from 'zod';
import { historyFilterSchema } from './history-filter';
import { movedAsideSchema } from './secret-contract';
import { revealRecordSchema, tokenChangesSchema } from './token-contract';

/**
 * What the GUI reads from the engine, over IPC (Electron) or HTTP (browser). Every message is validated once, by
 * its receiver: requests by the main process or the engine, replies and pushed events by the renderer.
 */

export const engineStatusSchema = z.object({
  url: z.string(),
  echoUrl: z.string().nullable(),
  /** null: the vault is in memory. */
  dataDir: z.string().nullable(),
  headerPrefix: z.string(),
  tokenCount: z.number().int().nonnegative(),
  applicationCount: z.number().int().nonnegative(),
  startedAt: z.string(),
});
export type EngineStatus = z.infer<typeof engineStatusSchema>;

const headerPairsSchema = z.array(z.tuple([z.string(), z.string()]));
const millisecondsSchema = z.number().nullable();

/**
 * What history records of one proxy call (docs/api.md, Proxy), beside the request as the client sent it. The engine
 * builds it with this type (proxy-history.ts); token data in it is masked.
 */
export const proxyDetailsSchema = z.object({
  /** Who chose the status the client got: the destination, or the proxy itself (a `{"proxy_error": …}` answer). */
  status_source: z.enum(['destination', 'proxy']),
  destination_url: z.string().nullable(),
  /** Where the hosted service would behave differently (http or IP destination, expressions outside the body, …). */
  warnings: z.array(z.string()),
  expressions: z.object({
    count: z.number().int(),
    token_ids: z.array(z.string()).readonly(),
    /**
     * The expressions the proxy wrote as nothing (`""`, `null` or no text), as written in the body and where (UTF-16
     * offsets of the body's text); absent when there were none, and for a body that is not UTF-8.
     */
    empty: z.array(z.object({ expression: z.string(), from: z.number().int(), to: z.number().int() })).optional(),
  }),
  /** The request as it left for the destination; absent when the proxy failed before forwarding. */
  outbound: z
    .object({
      method: z.string(),
      url: z.string().optional(),
      headers: headerPairsSchema,
      bytes: z.number().int(),
      /**
       * Stored form only: a body that history masks when it is read names its kind here; the engine fills in
       * `detokenized_body` from it before an entry leaves it.
       */
      body_kind: z.enum(['json', 'form', 'text']).optional(),
      /** The outbound body with every detokenized value masked (its first 16 KiB); null when none was kept. */
      detokenized_body: z.string().nullable().optional(),
    })
    .optional(),
  /** The destination's answer; absent when it never answered. */
  response: z.object({ status: z.number().int(), headers: headerPairsSchema, bytes: z.number().int() }).optional(),
  /** The proxy's own failure: before forwarding (status_source "proxy"), or a destination answer cut off mid-body. */
  failure: z
    .object({
      status: z.number().int(),
      kind: z.string().nullable(),
      /** For a destination not reached (`kind` "unreachable"), why: one of network-failures.ts's reasons; absent in older entries. */
      reason: z.string().nullable().optional(),
      detail: z.string().nullable(),
    })
    .optional(),
  /** The pre-configured proxy the call named by its key; absent for an ephemeral call. */
  proxy: z.object({ id: z.string(), name: z.string() }).optional(),
  /**
   * A pre-configured proxy's pipeline, step by step, as the call went through it: what each step changed (headers,
   * body; detokenized values masked, bodies as far as history keeps them), a note, and how long it took.
   */
  trace: z
    .array(
      z.object({
        step: z.string(),
        ms: z.number(),
        note: z.string().optional(),
        headers: headerPairsSchema.optional(),
        body: z.string().nullable().optional(),
        /** The step made the body that left: it is the entry's `outbound.detokenized_body`, kept there once. */
        outbound_body: z.literal(true).optional(),
        /** What the step's code logged (`level: message`), detokenized values masked. */
        logs: z.array(z.string()).optional(),
      }),
    )
    .optional(),
  timings: z.object({ detokenize_ms: millisecondsSchema, destination_headers_ms: millisecondsSchema, total_ms: millisecondsSchema }),
});
export type ProxyDetails = z.infer<typeof proxyDetailsSchema>;

const sentHistoryEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  kind: z.enum(['api', 'proxy', 'workbench']),
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  duration_ms: z.number(),
  application_id: z.string().nullable(),
  /**
   * Set when the workbench made the request: the page it was made on (pages.ts), or null when the call named none.
   * Absent for any other client's request, and in entries older than the field. Kept as stored, never narrowed to
   * today's pages, so an entry naming a page since renamed still reads.
   */
  workbench_page: z.string().nullable().optional(),
  trace_id: z.string().nullable(),
  /** The transaction the request worked in; absent in entries older than the field. */
  transaction_id: z.string().nullable().optional(),
  request_headers: headerPairsSchema,
  request_body: z.unknown().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
/** One request the engine handled, as its history keeps it and sends it (token data already masked). */
export type SentHistoryEntry = z.infer<typeof sentHistoryEntrySchema>;

/** What a change the workbench made itself (in Settings) recorded in history: the method that made it, in words. */
export const workbenchChangeSchema = z.object({ action: z.string(), summary: z.string() });
export type WorkbenchChange = z.output<typeof workbenchChangeSchema>;

/**
 * An entry as the GUI reads it: a proxy entry's details checked here, once, as `proxy` (null for other kinds, and for
 * an entry an older version wrote in another shape, which still lists); a workbench reveal's as `reveal`, a workbench
 * change's as `change`.
 */
export const historyEntrySchema = sentHistoryEntrySchema.transform((entry) => ({
  ...entry,
  proxy: entry.kind === 'proxy' ? (proxyDetailsSchema.safeParse(entry.details).data ?? null) : null,
  ...(entry.kind === 'workbench' && {
    reveal: revealRecordSchema.safeParse(entry.details?.reveal).data ?? null,
    change: workbenchChangeSchema.safeParse(entry.details?.change).data ?? null,
  }),
}));
export type HistoryEntry = z.output<typeof historyEntrySchema>;

export const HISTORY_PAGE_MAX = 500;

/** A page of history, newest first: the latest, or the one before an entry id. */
export const historyQuerySchema = z.strictObject({
  limit: z.number().int().min(1).max(HISTORY_PAGE_MAX).default(100),
  /** Page back from this entry id. */
  before: z.string().min(1).max(200).optional(),
  /** Only the entries this matches, looked for in everything the engine keeps. */
  filter: historyFilterSchema.optional(),
});

/** Newest first, like the engine's history. */
export const historyListSchema = z.array(historyEntrySchema);

/** Which history entry's outbound body to reveal. */
export const revealQuerySchema = z.strictObject({ id: z.string().min(1).max(200) });
/** A revealed outbound body: plaintext, for the one view that asked; never stored in the GUI's state. */
export const revealedOutboundSchema = z.object({ detokenized_body: z.string() });

const isoTimeSchema = z.string();

/** One write a transaction enlisted, in order; its token data masked, and null once the transaction has ended. */
export const enlistedOperationSchema = z.object({
  token_id: z.string(),
  operation: z.enum(['create', 'update', 'delete']),
  enlisted_at: isoTimeSchema,
  /** The application whose request enlisted it; null for a write staged before Tokenbench recorded that. */
  application_id: z.string().nullable(),
  data: z.unknown(),
});

/** A token an open transaction holds until it ends: an id it creates is `reserved`, one it changes or deletes `locked`. */
export const transactionLockSchema = z.object({ token_id: z.string(), kind: z.enum(['reserved', 'locked']) });

/** What a commit would make visible to other requests, per token, after all the transaction's writes to it (data masked). */
export const commitEffectSchema = z.object({
  token_id: z.string(),
  effect: z.enum(['created', 'updated', 'deleted']),
  data: z.unknown(),
});
export type CommitEffect = z.output<typeof commitEffectSchema>;

export const TRANSACTION_STATES = ['open', 'committed', 'rolled_back', 'expired'] as const;

/** A transaction as the workbench shows it: its state, who opened it, its time left and its operations. */
export const transactionViewSchema = z.object({
  id: z.string(),
  state: z.enum(TRANSACTION_STATES),
  /** The application whose key created it. */
  created_by: z.string(),
  created_at: isoTimeSchema,
  expires_at: isoTimeSchema,
  /** When it left `open`; null while open. */
  ended_at: isoTimeSchema.nullable(),
  /** Milliseconds until it expires when it was read; 0 once it has ended. */
  time_left_ms: z.number().nonnegative(),
  operations: z.array(enlistedOperationSchema),
  /** The tokens it holds while open; empty once it has ended. */
  locks: z.array(transactionLockSchema),
  /** What committing it now would make visible; empty once it has ended. */
  on_commit: z.array(commitEffectSchema),
});
export type TransactionView = z.output<typeof transactionViewSchema>;

/** The most transactions one page of the list holds. */
export const TRANSACTION_PAGE_MAX = 500;

/** Which transactions a list holds: those in one state, or every ended one (committed, rolled back or expired). */
export const transactionFilterSchema = z.enum([...TRANSACTION_STATES, 'ended']);
export type TransactionFilter = z.output<typeof transactionFilterSchema>;

/** A page of the kept transactions, newest first: the latest, or the one after the page before. */
export const transactionQuerySchema = z.strictObject({
  /** Only these; every kept transaction when absent. */
  state: transactionFilterSchema.optional(),
  limit: z.number().int().min(1).max(TRANSACTION_PAGE_MAX).default(100),
  /** Page back from where the page before ended: its `next`. */
  before: z.string().min(1).max(200).optional(),
});
export type TransactionQuery = z.output<typeof transactionQuerySchema>;

const countSchema = z.number().int().nonnegative();
/** How many transactions the engine keeps (ended ones for a day): in all, and in each state. */
export const transactionCountsSchema = z.object({
  kept: countSchema,
  open: countSchema,
  committed: countSchema,
  rolled_back: countSchema,
  expired: countSchema,
});
export type TransactionCounts = z.output<typeof transactionCountsSchema>;

export const transactionPageSchema = z.object({
  transactions: z.array(transactionViewSchema),
  /** Where the next older page starts (its `before`); null when this page ends with the oldest. */
  next: z.string().nullable(),
  /** Every kept transaction's, not only this page's or the filter's. */
  counts: transactionCountsSchema,
});
export type TransactionPage = z.output<typeof transactionPageSchema>;

/** The methods a composed request may use. */
export const COMPOSER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * A request as the Composer holds it and a collection keeps it (one readable file each): what the user wrote, not the
 * bytes it becomes (see the page's wire-request.ts), so a saved request opens again exactly as it was composed.
 */
export const savedRequestSchema = z.strictObject({
  /** Through the proxy to a destination, or straight to the vault's own API. */
  kind: z.enum(['proxy', 'api']),
  method: z.enum(COMPOSER_METHODS),
  /** Through the proxy: the destination URL (`https://api.example.com/v1/charges?x=1`). Vault API: the path (`/tokens`). */
  target: z.string().max(16 * 1024),
  /** A row switched off stays in the table and is not sent. */
  headers: z.array(z.strictObject({ name: z.string().max(1024), value: z.string().max(16 * 1024), enabled: z.boolean() })).max(200),
  /** The service's own headers, as the Composer's named fields. */
  service: z.strictObject({ transaction: z.string(), trace: z.string(), keepAlive: z.string(), connection: z.string() }),
  bodyMode: z.enum(['json', 'form', 'text', 'xml', 'none']),
  body: z.string().max(1024 * 1024),
});
export type SavedRequest = z.output<typeof savedRequestSchema>;

const collectionNameSchema = z.string().min(1).max(100);

/** Every collection in the folder and its requests; a file that is not a saved request is listed with why. */
export const collectionsViewSchema = z.object({
  folder: z.string(),
  collections: z.array(
    z.object({
      name: z.string(),
      requests: z.array(
        z.object({
          name: z.string(),
          request: savedRequestSchema.nullable(),
          problem: z.string().nullable(),
          /**
           * The headers whose file holds a credential in plain text (one written before Secrets, or by hand): the next
           * save moves each into Secrets. Filled in by the workbench, not the folder's reader.
           */
          secrets_in_plain_text: z.array(z.string()).optional(),
        }),
      ),
    }),
  ),
});
export type CollectionsView = z.output<typeof collectionsViewSchema>;

/** The collections once a request is saved, and the credentials its save moved into Secrets. */
export const savedRequestsSchema = collectionsViewSchema.extend({ moved_aside: z.array(movedAsideSchema) });

/** What the user pasted to import: a cURL command or a HAR (a whole file, one entry, or one request). */
export const importRequestSchema = z.strictObject({ text: z.string().max(8 * 1024 * 1024) });

/** The requests read from a paste, each as the Composer holds one, with what changed on the way. */
export const importedRequestsSchema = z.object({
  format: z.enum(['curl', 'har']),
  requests: z.array(
    z.object({
      label: z.string(),
      request: savedRequestSchema,
      notes: z.array(z.string()),
      /** The credentials moved into Secrets, which the request now refers to by name. */
      moved_aside: z.array(movedAsideSchema),
    }),
  ),
  /** A HAR with more requests than the Composer lists: how many were left out. */
  left_out: z.number().int().positive().optional(),
});
export type ImportedRequests = z.output<typeof importedRequestsSchema>;

/** Where a saved request is: its collection and its name. */
export const requestPlaceSchema = z.strictObject({ collection: collectionNameSchema, name: collectionNameSchema });

/**
 * The engine's live event road as the workbench hears it: `connected` on every (re)subscription, then batched
 * `update`s with what changed since the last one.
 */
export const liveEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('connected'), status: engineStatusSchema }),
  z.object({
    type: z.literal('update'),
    status: engineStatusSchema,
    /** New history entries, newest first; under load only the newest of the batch (the GUI shows the latest requests). */
    entries: historyListSchema,
    /** Transactions created, enlisted in or ended since the last update, each in its latest state. */
    transactions: z.array(transactionViewSchema),
    /** The counts after those changes; present when there were any. */
    transactionCounts: transactionCountsSchema.optional(),
    /** The saved requests as they are now, when their folder changed since the last update. */
    collections: collectionsViewSchema.optional(),
    /** Tokens created, changed or deleted since the last update, by id. */
    tokens: tokenChangesSchema.default({ changes: [], more: false }),
    /** The kept history changed other than by new entries (cleared, or trimmed to a new retention): read it again. */
    historyReset: z.boolean().default(false),
  }),
]);
export type LiveEvent = z.output<typeof liveEventSchema>;
/** A live event as the engine sends it (its entries not yet read by historyEntrySchema). */
export type SentLiveEvent = z.input<typeof liveEventSchema>;


/** An application of the local engine, as the workbench picks one to act as. */
export const applicationChoiceSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(['private', 'public', 'management']),
  /** The key the workbench sends with for this application, minted on its first use; null until then or once revoked. */
  workbench_key: z.object({ id: z.string(), created_at: isoTimeSchema }).nullable(),
});
export type ApplicationChoice = z.output<typeof applicationChoiceSchema>;

/** A composed request as a client sends it: its method, its path and query (`/proxy/v1/charges?x=1`), headers and body. */
export const wireRequestFields = {
  method: z.enum(COMPOSER_METHODS),
  path: z.string().startsWith('/').max(16 * 1024),
  headers: z.array(z.tuple([z.string().min(1).max(1024), z.string().max(16 * 1024)])).max(200),
  body: z.string().nullable(),
};

/** Where a composed request goes: the local engine as one of its applications, or a remote target with its key. */
export const requestTargetFields = {
  application_id: z.string().min(1).max(200).optional(),
  /** A remote target (listRemoteTargets): sent there instead, with the key the engine keeps for it. */
  target_id: z.string().min(1).max(100).optional(),
};

/** Exactly one of application_id and target_id. */
export const oneTarget = (request: { application_id?: string; target_id?: string }) => (request.application_id === undefined) !== (request.target_id === undefined);
export const ONE_TARGET = 'Give either application_id (the local engine) or target_id (a remote target)';

/**
 * A request composed in the workbench, exactly as a client would send it to the service. The engine adds only the key:
 * the chosen application's, or the remote target's.
 */
export const composedRequestSchema = z
  .strictObject({
    /** Chosen by the page, so it can cancel the request while it runs. */
    id: z.string().min(1).max(100),
    ...requestTargetFields,
    ...wireRequestFields,
  })
  .refine(oneTarget, ONE_TARGET);
export type ComposedRequest = z.output<typeof composedRequestSchema>;

/** What came back to a composed request. */
export const exchangeOutcomeSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('response'),
    status: z.number().int(),
    /** The reason phrase the server sent. */
    status_text: z.string(),
    headers: headerPairsSchema,
    /** The body, base64: a destination's answer may be any bytes. */
    body_base64: z.string(),
    /** The body's whole size; the workbench keeps at most its first part. */
    bytes: z.number().int().nonnegative(),
    truncated: z.boolean(),
  }),
  /** The service could not be reached: what was tried and what came back. */
  z.object({ kind: z.literal('unreachable'), code: z.string().nullable(), detail: z.string() }),
  /** The user cancelled it before the answer was complete. */
  z.object({ kind: z.literal('cancelled') }),
]);

/** A composed request as it left, what came back, and the history entry the engine wrote for it. */
export const exchangeSchema = z.object({
  request: z.object({ method: z.string(), url: z.string(), headers: headerPairsSchema, bytes: z.number().int() }),
  outcome: exchangeOutcomeSchema,
  duration_ms: z.number(),
  /** The engine's record of the request (masked), when it wrote one: who answered, and why a proxy call failed. */
  entry: historyEntrySchema.nullable(),
});
export type Exchange = z.output<typeof exchangeSchema>;

/**
 * Which requests to export: these ids (a selection), or every kept request a filter matches (none: all of them); and
 * `before`, the `next` of the page before, to go on with the same request.
 */
export const harExportSchema = z.strictObject({
  ids: z.array(z.string().min(1).max(200)).min(1).max(HISTORY_PAGE_MAX).optional(),
  filter: historyFilterSchema.optional(),
  before: z.string().min(1).max(200).optional(),
});

/**
 * One page of an export: a HAR 1.2 document of some of the requests (its entries as the engine builds them:
 * history/har-export.ts, oldest first), and `next`, what to ask the next page `before`: null after the last. Pages run
 * from the newest requests back, so the whole export lists the last page's entries first.
 */
export const harPageSchema = z.object({
  log: z.object({
    version: z.literal('1.2'),
    creator: z.object({ name: z.string(), version: z.string() }),
    entries: z.array(z.record(z.string(), z.unknown())),
  }),
  next: z.string().nullable(),
});
export type HarPage = z.output<typeof harPageSchema>;

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
});

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
export type EngineSettings = z.output<typeof engineSettingsSchema>;

/** The kinds of application the vault knows (docs/api.md, Applications and keys). */
export const APPLICATION_TYPES = ['private', 'public', 'management'] as const;
const applicationIdSchema = z.string().min(1).max(200);

/** An access rule as stored: tried in ascending priority (docs/api.md, Permissions and access rules). */
export const accessRuleSchema = z.object({
  description: z.string(),
  priority: z.number(),
  container: z.string(),
  transform: z.enum(['redact', 'mask', 'reveal']),
  permissions: z.array(z.string()),
});
export type AccessRuleView = z.output<typeof accessRuleSchema>;

/** An application as Settings shows it: its permissions, rules and keys (never a key's secret, nor its hash). */
export const applicationDetailSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(APPLICATION_TYPES),
  permissions: z.array(z.string()),
  rules: z.array(accessRuleSchema),
  /**
   * `kept`: a key Tokenbench keeps to use again, `workbench` (the Composer sends with it) or `export` (seed files carry
   * it); null for a key made for a client.
   */
  keys: z.array(z.object({ id: z.string(), created_at: isoTimeSchema, kept: z.enum(['workbench', 'export']).nullable() })),
  created_at: isoTimeSchema,
  modified_at: isoTimeSchema.nullable(),
});
export type ApplicationDetail = z.output<typeof applicationDetailSchema>;

/**
 * An application's fields as Settings edits them. The shape is checked here; what they mean (a permission the type may
 * hold, a container's form) the engine checks as POST and PUT /applications do, naming each field it refuses.
 */
const applicationFieldsSchema = {
  name: z.string().max(200),
  permissions: z.array(z.string().max(100)).max(100),
  rules: z.array(z.unknown()).max(100),
};
export const newApplicationSchema = z.strictObject({ ...applicationFieldsSchema, type: z.enum(APPLICATION_TYPES) });
export const applicationChangeSchema = z.strictObject({ ...applicationFieldsSchema, id: applicationIdSchema });
export const applicationRefSchema = z.strictObject({ application_id: applicationIdSchema });
export const keyRefSchema = z.strictObject({ application_id: applicationIdSchema, key_id: z.string().min(1).max(200) });

/** A key just made: its secret is in this one answer and nowhere else, ever. */
export const newKeySchema = z.object({
  application: applicationDetailSchema,
  key: z.object({ id: z.string(), created_at: isoTimeSchema, key: z.string() }),
});

/** A permission an application may hold, in the vendor's words, and the types that may hold it. */
export const permissionInfoSchema = z.object({
  type: z.string(),
  description: z.string(),
  application_types: z.array(z.enum(APPLICATION_TYPES)),
});
export type PermissionInfo = z.output<typeof permissionInfoSchema>;

/** Export the applications and rules as a seed file; their tokens, with plaintext data, only when asked. */
export const seedExportRequestSchema = z.strictObject({ include_tokens: z.boolean() });
export const seedExportSchema = z.object({
  /** The file's content (docs/api.md, Seed file): with each application's export key, and token data when asked. */
  seed: z.record(z.string(), z.unknown()),
  applications: z.number().int(),
  tokens: z.number().int(),
  /** The export keys the file carries, by id and last four; `made`: this export made it (the first, or after a revoke). */
  keys: z.array(z.object({ application_id: z.string(), key_id: z.string(), key_last4: z.string(), made: z.boolean() })),
});

/** A seed file to read against the vault: `apply` false only says what it would do. */
export const seedImportRequestSchema = z.strictObject({ seed: z.unknown(), apply: z.boolean() });
/** What a seed does to the vault, entry by entry (`application "x"`, `token y: exists with other data`). */
export const seedReportSchema = z.object({ created: z.array(z.string()), unchanged: z.array(z.string()), conflicts: z.array(z.string()) });
export type SeedReportView = z.output<typeof seedReportSchema>;

/** One of the first-start keys, with the application it belongs to. */
const firstKeySchema = z.object({ application_id: z.string(), application_name: z.string(), key: z.string() });

/** What the welcome view shows of a new vault: its two first keys, this once; null once they have been shown. */
export const welcomeSchema = z.object({ keys: z.object({ management: firstKeySchema, private: firstKeySchema }).nullable() });
export type Welcome = z.output<typeof welcomeSchema>;

/** Wiping asks for the word, so no stray call empties a vault. */
export const wipeRequestSchema = z.strictObject({ confirm: z.literal('wipe', { error: 'Send {"confirm": "wipe"} to wipe the vault' }) });
export const wipeReportSchema = z.object({ tokens: z.number().int(), transactions: z.number().int(), applications: z.number().int() });
