import { maskCardNumbers } from './card-numbers';

/**
 * A request body history keeps as bytes (the proxy's body as sent, expressions and all). It travels to the history
 * worker and into its own BLOB column untouched: escaping a JSON body into the entry's JSON would cost the main
 * thread more than forwarding the body does.
 */
export interface KeptBody {
  /** Size of the whole body. */
  bytes: number;
  /** Whether the whole body was UTF-8 (else history shows no text). */
  utf8: boolean;
  /** Its first bytes, as many as history keeps. */
  kept: Uint8Array;
}

/** What the entry's JSON holds in place of the text, which sits in the body column. */
export type StoredBodyHead = Pick<KeptBody, 'bytes' | 'utf8'>;

/** The body as history shows it: its size and its text (null when the body is not UTF-8). */
export function shownBody({ bytes, utf8 }: StoredBodyHead, kept: Uint8Array): { bytes: number; text: string | null } {
  return { bytes, text: utf8 ? Buffer.from(kept.buffer, kept.byteOffset, kept.byteLength).toString('utf8') : null };
}

/**
 * Kept bytes with every card number in them masked (maskCardNumbers), as history stores and shows them: a client may
 * send one in plaintext through the proxy. Digits and their masks are ASCII, so the bytes stay as long, and UTF-8.
 */
export function cardNumbersMasked(kept: Uint8Array): Uint8Array {
  const text = Buffer.from(kept.buffer, kept.byteOffset, kept.byteLength).toString('latin1');
  const masked = maskCardNumbers(text);
  return masked.masked === 0 ? kept : Buffer.from(masked.text, 'latin1');
}

/** Where a proxy entry keeps its outbound body, masked (see proxy-history's outboundText). */
interface OutboundHead {
  details?: { outbound?: { detokenized_body?: string | null } };
}

/** The proxy's outbound body as history stores and shows it: its card numbers masked too. */
export const outboundShown = (text: string): string => maskCardNumbers(text).text;

/** The entry with the proxy's outbound body (outboundShown) in it. */
export function withOutboundBody<Entry extends OutboundHead>(entry: Entry, shown: string): Entry {
  const outbound = entry.details?.outbound;
  if (outbound) outbound.detokenized_body = shown;
  return entry;
}
