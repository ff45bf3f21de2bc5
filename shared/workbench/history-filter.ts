import { z } from 'zod';

/** The slices of the history a developer asks for most: what failed, and who failed it. */
export const HISTORY_VIEWS = ['all', 'proxy', 'proxy-errors', 'destination-errors', 'warnings', 'failed', 'reveals', 'changes'] as const;
export type HistoryView = (typeof HISTORY_VIEWS)[number];

/** Who sent a request: a client other than this workbench, or this workbench (its pages, and the changes it made). */
export const HISTORY_SENDERS = ['outside', 'workbench'] as const;
export type HistorySender = (typeof HISTORY_SENDERS)[number];

const id = z.string().trim().min(1).max(200);
const instant = z.iso.datetime({ offset: true });

/** Which requests to list; every field narrows, none given lists them all. */
export const historyFilterSchema = z.strictObject({
  view: z.enum(HISTORY_VIEWS).default('all'),
  /** Matched, case-insensitively, against the method, path, status, trace id and the workbench page that sent it ("Tokens page"). */
  text: z.string().max(200).default(''),
  sender: z.enum(HISTORY_SENDERS).optional(),
  /** The application the request acted as, whoever sent it. */
  application_id: id.optional(),
  transaction_id: id.optional(),
  /** Every request that used the token: in its path, or detokenized by the proxy. */
  token_id: id.optional(),
  /** Answered at or after / before these instants (ISO 8601). */
  since: instant.optional(),
  until: instant.optional(),
});
export type HistoryFilter = z.output<typeof historyFilterSchema>;
export type HistoryFilterInput = z.input<typeof historyFilterSchema>;
