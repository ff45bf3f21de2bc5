import { z } from 'zod';

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
  expressions: z.object({ count: z.number().int(), token_ids: z.array(z.string()).readonly() }),
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
  failure: z.object({ status: z.number().int(), kind: z.string().nullable(), detail: z.string().nullable() }).optional(),
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
  trace_id: z.string().nullable(),
  request_headers: headerPairsSchema,
  request_body: z.unknown().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
/** One request the engine handled, as its history keeps it and sends it (token data already masked). */
export type SentHistoryEntry = z.infer<typeof sentHistoryEntrySchema>;

/**
 * An entry as the GUI reads it: a proxy entry's details checked here, once, as `proxy` (null for other kinds, and for
 * an entry an older version wrote in another shape, which still lists).
 */
export const historyEntrySchema = sentHistoryEntrySchema.transform((entry) => ({
  ...entry,
  proxy: entry.kind === 'proxy' ? (proxyDetailsSchema.safeParse(entry.details).data ?? null) : null,
}));
export type HistoryEntry = z.output<typeof historyEntrySchema>;

export const HISTORY_PAGE_MAX = 500;

/** A page of history, newest first: the latest, or the one before an entry id. */
export const historyQuerySchema = z.strictObject({
  limit: z.number().int().min(1).max(HISTORY_PAGE_MAX).default(100),
  /** Page back from this entry id. */
  before: z.string().min(1).max(200).optional(),
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
  data: z.unknown(),
});

/** A transaction as the workbench shows it: its state, who opened it, its time left and its operations. */
export const transactionViewSchema = z.object({
  id: z.string(),
  state: z.enum(['open', 'committed', 'rolled_back', 'expired']),
  /** The application whose key created it. */
  created_by: z.string(),
  created_at: isoTimeSchema,
  expires_at: isoTimeSchema,
  /** When it left `open`; null while open. */
  ended_at: isoTimeSchema.nullable(),
  /** Milliseconds until it expires when it was read; 0 once it has ended. */
  time_left_ms: z.number().nonnegative(),
  operations: z.array(enlistedOperationSchema),
});
export type TransactionView = z.output<typeof transactionViewSchema>;

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
  }),
]);
export type LiveEvent = z.output<typeof liveEventSchema>;
/** A live event as the engine sends it (its entries not yet read by historyEntrySchema). */
export type SentLiveEvent = z.input<typeof liveEventSchema>;

/** The methods a composed request may use. */
export const COMPOSER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

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
