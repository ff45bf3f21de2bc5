import { beforeEach, inject } from 'vitest';
import { NO_POSTGRES } from './postgres-cluster';
import { TEST_POSTGRES_ENV } from './test-engine';

// The engine-on-postgres project's setup file (vitest.config.ts): its files start engines through startTestEngine,
// which reads the cluster from the environment because Playwright's tests share that helper and cannot import vitest.
const cluster = inject('postgres');
if ('url' in cluster) process.env[TEST_POSTGRES_ENV] = cluster.url;
// Without a cluster the files would silently run over SQLite again: each test is skipped instead, with the reason.
else beforeEach((context) => context.skip(NO_POSTGRES));
