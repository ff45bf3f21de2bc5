import { z } from 'zod';
import { unsupported } from '../server/validation';
import { clientTokenRequest } from '../vault/token-requests';

/** Token fields that belong to the token an intent becomes, given at its conversion: refused here, never dropped. */
const TOKEN_ONLY = 'is a field of the token the intent becomes: give it with token_intent_id when converting the intent';
const tokenOnly = Object.fromEntries(
  ['id', 'metadata', 'containers', 'mask', 'search_indexes', 'fingerprint_expression', 'deduplicate_token', 'expires_at', 'token_intent_id'].map(
    (field) => [field, unsupported(`${field} ${TOKEN_ONLY}`)],
  ),
);

/** The body of POST /token-intents (docs/api.md, Token intents); unknown fields are ignored, as everywhere. */
export const createIntentRequest = z.object({
  type: z.string({ error: 'Token type is required' }),
  data: z.unknown().optional(),
  encrypted: clientTokenRequest.shape.encrypted,
  ...tokenOnly,
});
export type CreateIntentRequest = z.infer<typeof createIntentRequest>;
