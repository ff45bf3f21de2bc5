import pg from 'pg';

/**
 * The key of the session-level advisory lock a replica holds for its start's one-time writes ("tokenbench start" in
 * a bigint).
 */
const START_LOCK = '8389758372839124785';

/**
 * Runs `work` (a start's one-time writes: the seed, the first-start keys) holding an advisory lock, so replicas that
 * start together do it one after the other, each reading what the one before it wrote. The lock is held on a
 * connection of its own, not the pool's, which `work` needs; ending that session releases it, also if this process
 * dies meanwhile.
 */
export async function whileStarting<T>(url: string, work: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  // A connection cut while held fails its query or its end; the event it also emits would otherwise end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [START_LOCK]);
    return await work();
  } finally {
    await client.end().catch(() => undefined);
  }
}
