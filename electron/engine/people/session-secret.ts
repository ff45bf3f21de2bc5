/** The least a session secret from the environment may hold: as much as the per-run session's random bytes. */
const SECRET_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * The owner's session as the workbench compares it, from a secret given in base64 or base64url (`openssl rand -base64
 * 32`): its bytes in base64url, which a URL's fragment and query carry unchanged. null when it is not at least 32
 * bytes of base64; the caller's message never repeats the value.
 */
export function sessionFromSecret(text: string): string | null {
  const trimmed = text.trim();
  if (!BASE64.test(trimmed)) return null;
  const bytes = Buffer.from(trimmed, 'base64');
  const canonical = bytes.toString('base64url');
  // Buffer skips what it cannot read: a value it read only in part is refused rather than shortened.
  if (canonical !== trimmed.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')) return null;
  return bytes.length >= SECRET_BYTES ? canonical : null;
}

export const SESSION_SECRET_RULE = `at least ${SECRET_BYTES} random bytes in base64 or base64url (openssl rand -base64 ${SECRET_BYTES})`;
