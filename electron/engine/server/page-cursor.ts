import { ApiProblem } from './problem';

/** Where a page of a list ordered by creation ended: its last row's creation time and id. */
export interface PagePosition {
  created_at: string;
  id: string;
}

/** The cursor of the page after `row`: opaque to clients, so the order a list walks can change without them knowing. */
export const encodeCursor = (row: PagePosition): string => Buffer.from(JSON.stringify([row.created_at, row.id])).toString('base64url');

/** The position a cursor names; 400 naming `field` when it is not one this service returned. */
export function decodeCursor(cursor: string, field: string): PagePosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    // No row has a NUL in its creation time or id, and PostgreSQL's text cannot hold one to compare.
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string') && !value.some((v) => v.includes('\u0000'))) {
      return { created_at: value[0], id: value[1] };
    }
  } catch {
    // fall through
  }
  throw new ApiProblem(400, `${field} is not a cursor this service returned`, { [field]: ['Unknown cursor'] });
}
