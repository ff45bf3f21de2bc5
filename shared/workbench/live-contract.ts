import { z } from 'zod';
import { collectionsViewSchema } from './collection-contract';
import { historyListSchema } from './history-contract';
import { tokenChangesSchema } from './token-contract';
import { transactionCountsSchema, transactionViewSchema } from './transaction-contract';

/**
 * The engine's status and its live event road, as the workbench hears them (over IPC in Electron, HTTP in the browser).
 * Every message is validated once, by its receiver: requests by the main process or the engine, replies and pushed
 * events by the renderer; the other domains' schemas are in the *-contract.ts files beside this one.
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

/**
 * The engine's live event road as the workbench hears it: `connected` on every (re)subscription, then batched
 * `update`s with what changed since the last one.
 */
export const liveEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('connected'), status: engineStatusSchema }),
  z.object({
    type: z.literal('update'),
    status: engineStatusSchema,
    /** New history entries, newest first; under load only the newest of the batch (see entriesLeftOut). */
    entries: historyListSchema,
    /**
     * How many new entries the batch left out, all older than those it carries (a burst past its cap): a list that
     * merged the batch would have a hole below them, so the reader reads its first page again.
     */
    entriesLeftOut: z.number().int().nonnegative().default(0),
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
    /**
     * The kept transactions changed other than one by one (the vault wiped, here or on another replica): list them
     * again rather than merge into what was listed.
     */
    transactionsReset: z.boolean().default(false),
    /** Token intents were created, converted or deleted since the last update: list them again. */
    tokenIntents: z.boolean().default(false),
    /** Webhooks whose deliveries were queued or attempted since the last update: their deliveries read again. */
    webhooks: z.array(z.string()).default([]),
  }),
]);
export type LiveEvent = z.output<typeof liveEventSchema>;
/** A live event as the engine sends it (its entries not yet read by historyEntrySchema). */
export type SentLiveEvent = z.input<typeof liveEventSchema>;
