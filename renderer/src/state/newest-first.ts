/** A row the engine lists by creation, as tokens and transactions are. */
interface Created {
  created_at: string;
  id: string;
}

/** The engine's order for such lists: newest first, ties by id (the order its cursors page in). */
export const newestFirst = (a: Created, b: Created): number => (a.created_at === b.created_at ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.created_at < b.created_at ? 1 : -1);

/**
 * Whether a row heard live joins a list read so far, newest first: it does unless it sorts below the oldest row read
 * while older pages remain to be read (it comes with its page then).
 */
export const joinsListed = (row: Created, listed: readonly Created[], morePages: boolean): boolean =>
  !morePages || listed.length === 0 || newestFirst(row, listed[listed.length - 1]) <= 0;
