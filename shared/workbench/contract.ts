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

/** One request the engine handled, as its history keeps it (token data already masked). */
export const historyEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  kind: z.enum(['api', 'proxy', 'workbench']),
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  duration_ms: z.number(),
  application_id: z.string().nullable(),
  trace_id: z.string().nullable(),
  request_headers: z.array(z.tuple([z.string(), z.string()])),
  request_body: z.unknown().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

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
export type LiveEvent = z.infer<typeof liveEventSchema>;

/** What a subscriber sees: the engine's events, plus `lost` when the transport dropped. */
export type FeedEvent = LiveEvent | { type: 'lost'; retrying: boolean };

/** The GUI's view of the engine; implemented by the preload bridge and by the renderer's two clients. */
export interface WorkbenchApi {
  getStatus(): Promise<EngineStatus>;
  listHistory(query?: HistoryQuery): Promise<HistoryEntry[]>;
  /** Subscribes to live history; returns the unsubscribe function. */
  onHistory(listener: (event: FeedEvent) => void): () => void;
}

const noPayload = z.undefined();

/** Request payload schema of every invoke channel, checked in the main process. */
export const ipcRequestSchemas = {
  [IPC_CHANNELS.getStatus]: noPayload,
  [IPC_CHANNELS.listHistory]: historyQuerySchema,
  [IPC_CHANNELS.liveStart]: noPayload,
  [IPC_CHANNELS.liveStop]: noPayload,
} satisfies Record<InvokeChannel, z.ZodType>;

/** What each invoke channel answers. */
export interface IpcReplies {
  [IPC_CHANNELS.getStatus]: EngineStatus;
  [IPC_CHANNELS.listHistory]: HistoryEntry[];
  [IPC_CHANNELS.liveStart]: Extract<LiveEvent, { type: 'connected' }>;
  [IPC_CHANNELS.liveStop]: void;
}

export type IpcRequest<C extends InvokeChannel> = z.output<(typeof ipcRequestSchemas)[C]>;
