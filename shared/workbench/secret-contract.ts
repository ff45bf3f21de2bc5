import { z } from 'zod';
import { REFERENCE_NAME, REFERENCE_NAME_RULE } from '../secrets/references';

/**
 * The secrets saved requests refer to as `${secret:NAME}` (shared/secrets/references.ts): listed by name, set,
 * replaced and deleted in Settings; a value leaves the engine only on an explicit reveal.
 */

export const secretNameSchema = z.string().regex(REFERENCE_NAME, `Not a secret name: ${REFERENCE_NAME_RULE}`);

/** What a header can carry: tab, visible ASCII and Latin-1; no line break or other control character. */
const HEADER_TEXT = /^[\t\x20-\x7e\x80-\xff]*$/;

/** A secret as Settings lists it: never its value. */
export const secretInfoSchema = z.object({
  name: z.string(),
  created_at: z.string(),
  /** When its value was last set. */
  updated_at: z.string(),
  /** The saved requests that refer to it, by collection and name. */
  used_by: z.array(z.object({ collection: z.string(), name: z.string() })),
});
export type SecretInfo = z.output<typeof secretInfoSchema>;

/** A secret to set, or whose value to replace. Spaces around a value mean nothing in a header, so they go. */
export const newSecretSchema = z.strictObject({
  name: secretNameSchema,
  value: z
    .string()
    .max(16 * 1024)
    .trim()
    .min(1, 'A secret needs a value')
    .regex(HEADER_TEXT, 'A secret is sent in a header: it cannot hold a line break, a control character or a character beyond Latin-1'),
});

export const secretRefSchema = z.strictObject({ name: secretNameSchema });

/** A secret's value, for the one view that asked; never kept by the page. */
export const revealedSecretSchema = z.object({ value: z.string() });

/** A credential taken out of a request into Secrets: the header it was in and the secret's name (never the value). */
export const movedAsideSchema = z.object({ header: z.string(), secret: z.string() });
export type MovedAside = z.output<typeof movedAsideSchema>;
