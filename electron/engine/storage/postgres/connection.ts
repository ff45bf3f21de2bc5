import pg from 'pg';
import { checkDatabaseUrl } from './database-url';

/**
 * BIGINT columns (epoch ms, counters, sequences) as JavaScript numbers, as better-sqlite3 gives them; a value beyond
 * 2^53 would come back changed, so it is refused instead.
 */
function int8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`BIGINT ${text} is beyond what a JavaScript number holds exactly`);
  return value;
}
const types: pg.CustomTypesConfig = {
  getTypeParser: (oid, format) => (oid === pg.types.builtins.INT8 ? int8 : (pg.types.getTypeParser(oid, format) as (text: string) => unknown)),
};

const LOST_ERRNO = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);

/**
 * Whether `error` says the connection to the database was lost or could not be made (a server restarting, a connection
 * killed, the network gone), as opposed to a statement the database refused: the same work may succeed on a new one.
 */
export function connectionLost(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || LOST_ERRNO.has(code))) return true;
  // pg's own errors for a connection that ended under it carry no code.
  return typeof message === 'string' && /^Connection terminated|connection error and is not queryable/.test(message);
}

/**
 * A pool of connections to the database at `url` (postgres:// or postgresql://). TLS comes from the URL as pg reads it
 * (sslmode, sslrootcert, sslcert, sslkey); the pool's size from its `max` parameter (pg's own option name), else pg's
 * default of 10. Nothing connects until the first query.
 */
export function openPostgresPool(url: string): pg.Pool {
  const max = checkDatabaseUrl(url).searchParams.get('max');
  return new pg.Pool({ connectionString: url, types, ...(max === null ? {} : { max: Number(max) }) });
}
