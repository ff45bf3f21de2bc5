import { configDefaults, defineConfig } from 'vitest/config';

/** PostgreSQL suites by name, so that the project owning the throwaway cluster has them and only them. */
const POSTGRES_SUITES = 'test/**/postgres-*.test.ts';

/**
 * The engine's vendor-facing HTTP suite, run a second time with every engine's vault in PostgreSQL
 * (test/support/engine-on-postgres.ts): the files that call the API through startTestEngine. Left out: the ones that
 * start no engine there (webhook-crash's child process, outbox-delivery, tenant-events, delivery-pacer, the default-port
 * client, test/logs), and one test that reads the data folder's SQLite files is skipped over PostgreSQL.
 */
const HTTP_SUITE = [
  'test/engine/*-api.test.ts',
  'test/engine/{http-service,grouped-creates,search-limits,cross-origin}.test.ts',
  'test/compat/*-{sdk,management,masks,filters,fields,formats}.test.ts',
  'test/transactions/*.test.ts',
  'test/token-intents/*.test.ts',
  'test/tenant/tenant-{api,delete,settings}.test.ts',
  'test/webhooks/{webhook-delivery,webhook-live,verify-snippet,delivery-pacing}.test.ts',
];

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
      {
        extends: true,
        test: {
          name: 'engine-on-postgres',
          include: HTTP_SUITE,
          globalSetup: ['test/support/postgres-global-setup.ts'],
          setupFiles: ['test/support/engine-on-postgres.ts'],
        },
      },
    ],
  },
});
