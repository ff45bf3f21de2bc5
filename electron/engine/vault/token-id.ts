/**
 * Client-chosen token ids (docs/api.md, Tokens; the hosted service's aliasing rules): 3 to 400 characters, none of
 * the characters that would break a URL path or an expression. Validate the id after any alias expression in it
 * has been evaluated: the expression itself contains `{{ }}`.
 */

const MIN_LENGTH = 3;
const MAX_LENGTH = 400;
// The hosted service's forbidden list, plus control characters (our choice: they cannot travel in a URL path).
const FORBIDDEN = /[#/\\+?[\]|&=%<>{}^\p{Cc}]/u;
// With the u flag a surrogate pair is one code point, so only a lone surrogate matches.
const LONE_SURROGATE = /\p{Cs}/u;

/** Null when `id` may name a token, else the reason. */
export function validateTokenId(id: unknown): string | null {
  if (typeof id !== 'string') return 'A token id must be a string';
  const length = [...id].length; // code points, as a user counts characters
  if (length < MIN_LENGTH || length > MAX_LENGTH) {
    return `A token id must be ${MIN_LENGTH} to ${MAX_LENGTH} characters long`;
  }
  // A lone surrogate has no UTF-8 form: SQLite would store other characters than the id the data is sealed to.
  if (LONE_SURROGATE.test(id)) return 'A token id may not contain a lone UTF-16 surrogate';
  if (FORBIDDEN.test(id)) {
    return 'A token id may not contain # / \\ + ? [ ] | & = % < > { } ^ or control characters';
  }
  return null;
}
