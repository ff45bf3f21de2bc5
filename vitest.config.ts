import { configDefaults, defineConfig } from 'vitest/config';

/** PostgreSQL suites by name, so that the project owning the throwaway cluster has them and only them. */
const POSTGRES_SUITES = 'test/**/postgres-*.test.ts';

export default defineConfig({
  test: {
    // Integration tests start real servers and SQLite files; two cores, so keep it to two workers.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: 'engine', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, POSTGRES_SUITES] } },
      // Its global setup starts one cluster per run, and only when one of these files is selected.
      { extends: true, test: { name: 'postgres', include: [POSTGRES_SUITES], globalSetup: ['test/support/postgres-global-setup.ts'] } },
    ],
  },
});
