import type { HistoryFilter } from '../../../shared/workbench/history-filter';
import { filtersAnything, matchesHistoryFilter, type FilterableEntry } from '../../../shared/workbench/history-match';
import { idTimePrefix } from './entry-id';
import type { EntryPage, HistoryRetention, StoredEntry } from './history-backend';
import { cardNumbersMasked, outboundShown, shownBody, type StoredBodyHead, withOutboundBody } from './kept-body';

/*
 * What both history backends (SQLite's HistoryStore, PostgresHistory) share: an entry's columns as stored and its JSON
 * as read, how a page fills, and the statements that read the same in both.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** A row as the history's tables hold it, in SQLite or PostgreSQL. */
export interface Row {
  entry: string;
  body: Buffer | null;
  /** Read only where the answer goes with the entry. */
  answer?: string | null;
  /** A proxy's outbound body, masked: null where the entry has none or (written before version 3) holds it itself. */
  outbound: string | null;
}

/** Where a proxy entry keeps what it says of the answer body (see proxy-history), and its outbound body. */
interface ProxyHead {
  details?: { response?: { body?: { text?: string } }; outbound?: { detokenized_body?: string | null } };
}

/**
 * An entry as readers get it: a body kept as bytes goes back into `request_body` as text, an outbound body into its
 * `detokenized_body`, and an answer read with it into its answer's `text`.
 */
export function entryJson({ entry, body, answer, outbound }: Row): string {
  if (body === null && outbound === null && (answer === undefined || answer === null)) return entry;
  const parsed = JSON.parse(entry) as { request_body: StoredBodyHead } & ProxyHead;
  if (body !== null) parsed.request_body = shownBody(parsed.request_body, body) as never;
  if (outbound !== null) withOutboundBody(parsed, outbound);
  const kept = parsed.details?.response?.body;
  if (typeof answer === 'string' && kept) kept.text = answer;
  return JSON.stringify(parsed);
}

/** An entry's columns as stored: its request body's and outbound body's card numbers masked. */
export function storedRow([id, json, kept, answer, outbound]: StoredEntry): [string, string, Buffer | null, string | null, string | null] {
  const body = kept && cardNumbersMasked(kept);
  const sent = typeof outbound === 'string' ? outboundShown(outbound) : null;
  return [id, json, body && Buffer.from(body.buffer, body.byteOffset, body.byteLength), answer ?? null, sent];
}

/** A page being filled, newest first: entries until there are `limit` of them or their JSON reaches `budget` characters. */
export class PageFiller {
  readonly entries: string[] = [];
  private size = 0;
  private readonly narrows: boolean;

  constructor(
    private readonly limit: number,
    private readonly budget: number,
    private readonly filter?: HistoryFilter,
  ) {
    this.narrows = filter !== undefined && filtersAnything(filter);
  }

  /** Adds the row's entry if the filter keeps it; true once the page is full. */
  offer(row: Row): boolean {
    if (this.narrows && !matchesHistoryFilter(JSON.parse(row.entry) as FilterableEntry, this.filter!)) return false;
    return this.add(entryJson(row));
  }

  /** Adds an entry; true once the page is full. */
  add(json: string): boolean {
    this.entries.push(json);
    this.size += json.length;
    return this.entries.length === this.limit || this.size >= this.budget;
  }

  /** The page, ending before `next` (null: none left). */
  page(next: string | null): EntryPage {
    return { entries: this.entries, next };
  }
}

/** The history's statements that read the same in SQLite and PostgreSQL (whose driver numbers the `?`s). */
export const HISTORY_SQL = {
  // seq only grows and rows leave oldest first, so the newest `limit` rows are the last `limit` seqs.
  trim: 'DELETE FROM request_log WHERE seq <= (SELECT MAX(seq) FROM request_log) - ?',
  // Ids start with the time they were made (UUIDv7): those below a time's prefix are older, found by the index.
  trimOlder: 'DELETE FROM request_log WHERE id < ?',
  clear: 'DELETE FROM request_log',
  recent: 'SELECT entry, body, outbound FROM request_log ORDER BY seq DESC LIMIT ?',
  before: 'SELECT entry, body, outbound FROM request_log WHERE seq < (SELECT seq FROM request_log WHERE id = ?) ORDER BY seq DESC LIMIT ?',
  get: 'SELECT entry, body, answer, outbound FROM request_log WHERE id = ?',
  seqOf: 'SELECT seq FROM request_log WHERE id = ?',
};

/** The age below which the retention trims: entries with ids below this prefix leave; null where age does not count. */
export function trimmedBefore({ maxAgeDays }: HistoryRetention, now: number): string | null {
  return maxAgeDays > 0 ? idTimePrefix(now - maxAgeDays * DAY_MS) : null;
}
