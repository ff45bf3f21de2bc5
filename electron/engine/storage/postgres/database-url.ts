/**
 * What the engine reads from a PostgreSQL URL before it connects: that it is one, and how to name the database in
 * what it prints. No pg here, so the CLI checks a URL without loading the driver; nothing here repeats the password.
 */

export class DatabaseUrlError extends Error {}

const EXAMPLE = 'give postgres://user:password@host:port/database';

/** The URL parsed, or a DatabaseUrlError that names what is wrong without repeating the URL (it may hold a password). */
export function checkDatabaseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DatabaseUrlError(`The database URL is not a URL: ${EXAMPLE}`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new DatabaseUrlError(`The database URL starts with ${parsed.protocol}, not postgres: ${EXAMPLE}`);
  }
  const max = parsed.searchParams.get('max');
  if (max !== null && !/^[1-9]\d{0,3}$/.test(max)) {
    throw new DatabaseUrlError(`The database URL's max=${max} is not a pool size: give a whole number from 1 to 9999`);
  }
  return parsed;
}

/**
 * Where `url` points, as a banner or an error may say it: host, port, database and user, never the password (nor the
 * query, where a `password=` may be). A socket URL (`postgres:///db?host=/run/postgresql`) names its socket folder.
 */
export function databaseNamed(url: string): string {
  const { hostname, port, pathname, username, searchParams } = new URL(url);
  const host = hostname || searchParams.get('host') || 'localhost';
  return `${host}:${port || '5432'}/${decodeURIComponent(pathname.slice(1))}${username ? ` as ${decodeURIComponent(username)}` : ''}`;
}
