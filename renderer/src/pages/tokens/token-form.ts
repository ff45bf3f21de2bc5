import type { TokenView } from '../../../../shared/workbench/token-contract';

/** A form's messages by field: `data.number`, `containers`, `metadata`, `mask`, … */
export type FieldErrors = Record<string, string>;

/**
 * The API's errors by path, under the form field they concern: `[3].data.number` (a batch) and `data.number` under
 * `data.number`, `containers.0` under `containers`, `metadata.k` under `metadata`.
 */
export function errorsByField(errors: Record<string, string[]> | undefined): FieldErrors {
  const byField: FieldErrors = {};
  for (const [path, messages] of Object.entries(errors ?? {})) {
    const unbatched = path.replace(/^\[\d+\]\.?/, '');
    const field = unbatched.startsWith('data') ? unbatched : unbatched.split('.')[0];
    byField[field] = byField[field] ? `${byField[field]}; ${messages.join('; ')}` : messages.join('; ');
  }
  return byField;
}

/** What a token may carry besides its data, as the create and edit forms hold it: text, as typed. */
export interface TokenOptions {
  /** Separated by spaces or commas. */
  containers: string;
  metadata: [string, string][];
  /** JSON; blank: the type's default (create) or none, so reads are redacted (edit). */
  mask: string;
  /** One template per line. */
  searchIndexes: string;
  /** ISO 8601 or any format the API takes; blank: never. */
  expiresAt: string;
}

export const NO_OPTIONS: TokenOptions = { containers: '', metadata: [], mask: '', searchIndexes: '', expiresAt: '' };

export function optionsOf(token: TokenView): TokenOptions {
  return {
    containers: token.containers.join(' '),
    metadata: Object.entries(token.metadata ?? {}),
    mask: token.mask === null || token.mask === undefined ? '' : JSON.stringify(token.mask, null, 2),
    searchIndexes: token.search_indexes.join('\n'),
    expiresAt: token.expires_at ?? '',
  };
}

export const words = (text: string) => text.split(/[\s,]+/).filter(Boolean);
export const lines = (text: string) => text.split('\n').map((line) => line.trim()).filter(Boolean);

/** The mask as JSON, or a message for the field; blank is null. */
export function parseMask(text: string): { mask: unknown } | { error: string } {
  if (text.trim() === '') return { mask: null };
  try {
    return { mask: JSON.parse(text) };
  } catch {
    return { error: 'The mask is JSON: a template string in quotes, or an object of them' };
  }
}

/**
 * A merge patch (as PATCH /tokens/{id} takes it) of what the form changed: metadata key by key (a key taken out is
 * null), every other field whole; nothing when nothing changed.
 */
export function patchOf(before: TokenOptions, after: TokenOptions): { patch: Record<string, unknown>; errors: FieldErrors } {
  const patch: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  const beforeMetadata = Object.fromEntries(before.metadata);
  const afterMetadata = Object.fromEntries(after.metadata.filter(([key]) => key !== ''));
  const metadata: Record<string, string | null> = {};
  for (const key of Object.keys(beforeMetadata)) if (!(key in afterMetadata)) metadata[key] = null;
  for (const [key, value] of Object.entries(afterMetadata)) if (beforeMetadata[key] !== value) metadata[key] = value;
  if (Object.keys(metadata).length > 0) patch.metadata = metadata;
  if (words(after.containers).join(' ') !== words(before.containers).join(' ')) patch.containers = words(after.containers);
  if (after.mask !== before.mask) {
    const parsed = parseMask(after.mask);
    if ('error' in parsed) errors.mask = parsed.error;
    else patch.mask = parsed.mask;
  }
  if (lines(after.searchIndexes).join('\n') !== lines(before.searchIndexes).join('\n')) patch.search_indexes = lines(after.searchIndexes);
  if (after.expiresAt.trim() !== before.expiresAt.trim()) patch.expires_at = after.expiresAt.trim() || null;
  return { patch, errors };
}
