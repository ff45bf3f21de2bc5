import { z } from 'zod';
import { cardSummarySchema } from './token-contract';

/** Token intents as the workbench reads them (docs/api.md, Token intents): never their data. */

export const tokenIntentViewSchema = z.object({
  id: z.string(),
  type: z.string(),
  /** The card summary of a card or card_number intent (bin, last4, expiry, brand); null for other types. */
  card: cardSummarySchema.nullable(),
  bank: z.object({ routing_number: z.string(), account_number_last4: z.string() }).nullable(),
  fingerprint: z.string().nullable(),
  /** The application that created it. */
  created_by: z.string(),
  created_at: z.string(),
  /** When it goes: the page counts down to it. */
  expires_at: z.string(),
});
export type TokenIntentView = z.output<typeof tokenIntentViewSchema>;

/** The live intents, newest first; `more`: there were more than the list holds. */
export const tokenIntentListSchema = z.object({ intents: z.array(tokenIntentViewSchema), more: z.boolean() });
export type TokenIntentList = z.output<typeof tokenIntentListSchema>;
