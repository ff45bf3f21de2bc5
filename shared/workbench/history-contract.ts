import { z } from 'zod';
import { historyFilterSchema } from './history-filter';
import { revealRecordSchema } from './token-contract';

/** The request history as the workbench reads it: entries (token data masked), their details, kept answers and HAR pages. */

export const headerPairsSchema = z.array(z.tuple([z.string(), z.string()]));
const millisecondsSchema = z.number().nullable();

/**
 * One step of a call's trace as History shows it (a pre-configured proxy's pipeline, a react): what it changed (headers,
 * body; detokenized values masked, bodies as far as history keeps them), a note, its code's log lines, how long it took.
 */
export const traceStepSchema = z.object({
  step: z.string(),
  ms: z.number(),
  note: z.string().optional(),
  headers: headerPairsSchema.optional(),
  body: z.string().nullable().optional(),
  /** The step made the body that left: it is the entry's `outbound.detokenized_body`, kept there once. */
  outbound_body: z.literal(true).optional(),
  /** What the step's code logged (`level: message`), detokenized values masked. */
  logs: z.array(z.string()).optional(),
});
export type TraceStep = z.infer<typeof traceStepSchema>;

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
       * The kind of a body the workbench can reveal (render again with its plaintext, revealOutbound): a UTF-8 body
       * one detokenization made and no code changed. An entry recorded before bodies were masked when the call
       * happened has this without `detokenized_body`: it shows no masked copy, and the reveal still works.
       */
      body_kind: z.enum(['json', 'form', 'text']).optional(),
      /** The outbound body with every detokenized value masked (its first 16 KiB), recorded when the call happened; null when none was kept. */
      detokenized_body: z.string().nullable().optional(),
    })
    .optional(),
  /** The destination's answer; absent when it never answered. */
  response: z
    .object({
      status: z.number().int(),
      headers: headerPairsSchema,
      bytes: z.number().int(),
      /** Its body, when Settings has history keep answers (absent otherwise): masked in the engine before it was stored. */
      body: z
        .object({
          /** The size of the masked text history kept, in UTF-8 bytes; null when it kept none. */
          bytes: z.number().int().nullable(),
          /**
           * The masked text: decompressed, with every value the request detokenized, in the forms a destination sends
           * it back, as `[redacted]`, and every card number (a Luhn-valid run of 13 to 19 digits) as its mask. Only
           * where one entry is read whole (getHistoryAnswer, a HAR export): lists leave it out, as it may be large.
           */
          text: z.string().optional(),
          /** How many values and card numbers were masked in it. */
          masked: z.number().int(),
          /** Why it was not kept ("not kept: 102,417 bytes, over the 65,536-byte bound"); null when it was. */
          not_kept: z.string().nullable(),
        })
        .optional(),
    })
    .optional(),
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
  /** The client encryption keys that decrypted the call's PFX-ENCRYPTED header (never its data); absent when none did. */
  client_encryption_keys: z.array(z.string()).optional(),
  /** The pre-configured proxy the call named by its key; absent for an ephemeral call. */
  proxy: z.object({ id: z.string(), name: z.string() }).optional(),
  /**
   * A pre-configured proxy's pipeline, step by step, as the call went through it: what each step changed (headers,
   * body; detokenized values masked, bodies as far as history keeps them), a note, and how long it took.
   */
  trace: z.array(traceStepSchema)
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
  /**
   * Set when the workbench sent the request: the environment its `${env:…}` references were read from (null: none
   * was chosen). Absent for any other client's request, and in entries older than the field.
   */
  workbench_environment: z.string().nullable().optional(),
  /**
   * Set when a named person (a workbench credential's holder) sent the request or made the change: the credential's id
   * and name. Absent for the workbench's owner, for any other client, and in entries older than the field.
   */
  workbench_person: z.object({ id: z.string(), name: z.string() }).optional(),
  trace_id: z.string().nullable(),
  /** The transaction the request worked in; absent in entries older than the field. */
  transaction_id: z.string().nullable().optional(),
  request_headers: headerPairsSchema,
  request_body: z.unknown().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
/**
 * What history records of one react (docs/api.md, Reactors), beside the request as the client sent it: the reactor,
 * the request id of a react-async, and the trace: the args in, the code with its log lines, the tokens its `tokenize`
 * made, the result out. Detokenized values are masked in it.
 */
export const reactorDetailsSchema = z.object({
  id: z.string(),
  name: z.string(),
  async_request_id: z.string().optional(),
  trace: z.array(traceStepSchema),
});
export type ReactorDetails = z.infer<typeof reactorDetailsSchema>;

/** One request the engine handled, as its history keeps it and sends it (token data already masked). */
export type SentHistoryEntry = z.infer<typeof sentHistoryEntrySchema>;

/** What a change the workbench made itself (in Settings) recorded in history: the method that made it, in words. */
export const workbenchChangeSchema = z.object({ action: z.string(), summary: z.string() });
export type WorkbenchChange = z.output<typeof workbenchChangeSchema>;

/**
 * An entry as the GUI reads it: a proxy entry's details checked here, once, as `proxy` (null for other kinds, and for
 * an entry an older version wrote in another shape, which still lists); a react's as `reactor`; a workbench reveal's as
 * `reveal`, a workbench change's as `change`.
 */
export const historyEntrySchema = sentHistoryEntrySchema.transform((entry) => ({
  ...entry,
  proxy: entry.kind === 'proxy' ? (proxyDetailsSchema.safeParse(entry.details).data ?? null) : null,
  reactor: entry.kind === 'api' ? (reactorDetailsSchema.safeParse(entry.details?.reactor).data ?? null) : null,
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

/** One history entry, by its id: whose outbound body to reveal, whose kept answer to read, which composed request's answer to reveal. */
export const historyEntryQuerySchema = z.strictObject({ id: z.string().min(1).max(200) });
/** The answer body history kept of a proxied request, masked: read one entry at a time, as it may be large. */
export const historyAnswerSchema = z.object({ text: z.string() });

/** A revealed outbound body: plaintext, for the one view that asked; never stored in the GUI's state. */
export const revealedOutboundSchema = z.object({ detokenized_body: z.string() });
/** A composed request's answer as received, plaintext included: for the one view that asked; never stored in the GUI's state. */
export const revealedAnswerSchema = z.object({ headers: headerPairsSchema, body_base64: z.string() });

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
