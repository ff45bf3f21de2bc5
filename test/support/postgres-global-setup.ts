import type { TestProject } from 'vitest/node';
import { findPostgresBinaries, NO_POSTGRES, startPostgresCluster } from './postgres-cluster';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throwaway cluster's superuser URL, or why the PostgreSQL suites skip. */
    postgres: { url: string } | { skipped: string };
  }
}

/**
 * The `postgres` project's global setup (vitest.config.ts): vitest runs it only when a file of that project is
 * selected, so a run without a PostgreSQL suite starts no cluster. One cluster serves the whole run, from vitest's
 * main process, where a crashed test worker cannot take it down or leave it behind.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const bindir = findPostgresBinaries();
  if (bindir === null) {
    console.warn(`\n${NO_POSTGRES}\n`);
    project.provide('postgres', { skipped: NO_POSTGRES });
    return undefined;
  }
  const cluster = await startPostgresCluster(bindir);
  project.provide('postgres', { url: cluster.url });
  return () => cluster.stop();
}
