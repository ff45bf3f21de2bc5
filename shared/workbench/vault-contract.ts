import { z } from 'zod';

/** The vault as a whole: seed files out and in, a new vault's first keys, and wiping it. */

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
