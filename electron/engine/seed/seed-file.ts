import { z } from 'zod';
import { applicationRequest } from '../access/application-requests';
import { MIN_SEEDED_KEY_LENGTH } from '../access/application-store';
import { createTokenRequest } from '../vault/token-requests';

/** `serve --seed FILE` (docs/api.md, Seed file): known keys and tokens for a CI pipeline. */
export const seedFile = z
  .object({
    applications: z
      .array(
        z.intersection(
          applicationRequest,
          z.object({ key: z.string().min(MIN_SEEDED_KEY_LENGTH, `A seeded key has at least ${MIN_SEEDED_KEY_LENGTH} characters`) }),
        ),
      )
      .default([]),
    tokens: z.array(createTokenRequest.extend({ id: z.string() })).default([]),
  })
  .strict();
export type SeedFile = z.infer<typeof seedFile>;

export interface SeedReport {
  created: string[];
  unchanged: string[];
  /** Entries that disagree with what the store holds: reported and skipped, never merged. */
  conflicts: string[];
}
