import { referencesIn } from './references';

/**
 * Which request headers carry credentials: history cuts their values to a hint, and a saved request keeps them as
 * references to secrets, never in its file.
 */

/** Headers whose value is a credential whatever it looks like. */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie']);
/**
 * A word of a header's name that says its value is one: `X-Api-Key`, `X-Auth-Token`, `X-Client-Secret`, `apikey`; and
 * `BT-ENCRYPTED`, data encrypted for a key the vault itself holds, so no less secret than the data.
 */
const CREDENTIAL_WORD = /(?:key|token|secret|password|passwd|credentials?|encrypted)(?![a-z0-9])/i;
/** An idempotency key names a request: it opens nothing. */
const NOT_CREDENTIAL = /idempotency/i;
/** What history shows of a credential (`...1a2b`), as a HAR exported from it carries it: no credential. */
const HISTORY_HINT = /^\.\.\..{0,4}$/;
/** The scheme that starts an Authorization value (RFC 9110 §11.4), which is no secret: `Bearer `, `Basic `. */
const AUTH_SCHEME = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]* +(?=\S)/;

export function isCredentialHeader(name: string): boolean {
  return CREDENTIAL_HEADERS.has(name.toLowerCase()) || (CREDENTIAL_WORD.test(name) && !NOT_CREDENTIAL.test(name));
}

/** A credential header's value split into what may stay in a file (an Authorization's scheme) and the credential. */
export interface PlainCredential {
  scheme: string;
  credential: string;
}

/**
 * The credential a header holds in plain text, or null: the header carries none, its value is blank, history's hint
 * of one, or written with references already (`Bearer ${secret:stripe-test}`), which a user composed on purpose.
 */
export function plainCredential(name: string, value: string): PlainCredential | null {
  if (!isCredentialHeader(name) || value.trim() === '' || HISTORY_HINT.test(value) || referencesIn(value).length > 0) return null;
  const lower = name.toLowerCase();
  const scheme = lower === 'authorization' || lower === 'proxy-authorization' ? (AUTH_SCHEME.exec(value)?.[0] ?? '') : '';
  return { scheme, credential: value.slice(scheme.length) };
}
