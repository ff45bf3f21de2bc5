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
