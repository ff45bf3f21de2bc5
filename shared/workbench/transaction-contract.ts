import { z } from 'zod';

/** Transactions as the workbench lists and shows them: their state, operations, locks and what a commit would do. */

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

/**
 * How far a view is along its transaction's life: each staging adds operations, and the end comes after all. Views
 * are shown forward only by it, so a read answered late never shows a transaction going back to an earlier state.
 */
export const progressOf = (view: Pick<TransactionView, 'state' | 'operations'>): number => (view.state === 'open' ? view.operations.length : Infinity);

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
