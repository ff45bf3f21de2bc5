import { describe, inject } from 'vitest';
import { createDatabase } from './postgres-cluster';

const cluster = inject('postgres') as ReturnType<typeof inject<'postgres'>> | undefined;
if (cluster === undefined) {
  throw new Error('Only the postgres project (vitest.config.ts) has a cluster: name a PostgreSQL suite postgres-*.test.ts');
}

/** The run's cluster (superuser URL), or null where the suites skip for want of PostgreSQL. */
export const postgresUrl: string | null = 'url' in cluster ? cluster.url : null;

/** `describe` for a PostgreSQL suite: skipped, with the global setup's one message, where there is no PostgreSQL. */
export const describePostgres = describe.skipIf(postgresUrl === null);

/** A fresh database of the run's cluster for one suite, so suites never see each other's rows; answers its URL. */
export function freshDatabase(name: string): Promise<string> {
  if (postgresUrl === null) throw new Error('no PostgreSQL cluster in this run');
  return createDatabase(postgresUrl, name);
}
