import { z } from 'zod';
import { IPC_CHANNELS, type InvokeChannel } from './transport';

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
 * What history records of one proxy call (wire contract §5), beside the request as the client sent it. The engine
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

export interface HistoryQuery {
  limit?: number;
  /** Page back from this entry id. */
  before?: string;
}

/** Coerces, so that one schema reads both an IPC object and an HTTP query string. */
export const historyQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(HISTORY_PAGE_MAX).default(100),
  before: z.string().min(1).max(200).optional(),
});

/** Which history entry's outbound body to reveal (a query parameter over HTTP, the payload over IPC). */
export const revealQuerySchema = z.object({ id: z.string().min(1).max(200) });
/** A revealed outbound body: plaintext, for the one view that asked; never stored in the GUI's state. */
export const revealedOutboundSchema = z.object({ detokenized_body: z.string() });
export type RevealedOutbound = z.infer<typeof revealedOutboundSchema>;

/** Newest first, like the engine's history. */
export const historyListSchema = z.array(historyEntrySchema);
export const historyPageSchema = z.object({ data: historyListSchema });

/** Pushed by the engine: `connected` on every (re)subscription, then batched `update`s. */
export const liveEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('connected'), status: engineStatusSchema }),
  z.object({
    type: z.literal('update'),
    status: engineStatusSchema,
    /** Newest first; under load only the newest of the batch (the GUI shows the latest requests). */
    entries: historyListSchema,
  }),
]);
export type LiveEvent = z.output<typeof liveEventSchema>;
/** A live event as the engine sends it (its entries not yet read by historyEntrySchema). */
export type SentLiveEvent = z.input<typeof liveEventSchema>;

/** What a subscriber sees: the engine's events, plus `lost` when the transport dropped. */
export type FeedEvent = LiveEvent | { type: 'lost'; retrying: boolean };

/** The GUI's view of the engine; implemented by the preload bridge and by the renderer's two clients. */
export interface WorkbenchApi {
  getStatus(): Promise<EngineStatus>;
  listHistory(query?: HistoryQuery): Promise<HistoryEntry[]>;
  /** Subscribes to live history; returns the unsubscribe function. */
  onHistory(listener: (event: FeedEvent) => void): () => void;
  /** The outbound body of a proxied request with its detokenized values in plaintext: only on the user's explicit action. */
  revealOutbound(entryId: string): Promise<RevealedOutbound>;
}

const noPayload = z.undefined();

/** Request payload schema of every invoke channel, checked in the main process. */
export const ipcRequestSchemas = {
  [IPC_CHANNELS.getStatus]: noPayload,
  [IPC_CHANNELS.listHistory]: historyQuerySchema,
  [IPC_CHANNELS.liveStart]: noPayload,
  [IPC_CHANNELS.liveStop]: noPayload,
  [IPC_CHANNELS.revealOutbound]: revealQuerySchema,
} satisfies Record<InvokeChannel, z.ZodType>;

/** What each invoke channel answers. */
export interface IpcReplies {
  [IPC_CHANNELS.getStatus]: EngineStatus;
  [IPC_CHANNELS.listHistory]: SentHistoryEntry[];
  [IPC_CHANNELS.liveStart]: Extract<SentLiveEvent, { type: 'connected' }>;
  [IPC_CHANNELS.liveStop]: void;
  [IPC_CHANNELS.revealOutbound]: RevealedOutbound;
}

export type IpcRequest<C extends InvokeChannel> = z.output<(typeof ipcRequestSchemas)[C]>;
