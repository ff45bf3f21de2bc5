/** The engine's public face: what the CLI, the Electron main process and the tests start. */
export { startEngine, type Engine, type BootstrapKeys, type StartOptions } from './start-engine';
export { resolveConfig, DEFAULT_PORT, DEFAULT_ECHO_PORT, MAX_INTENT_TTL_SECONDS, type EngineConfig } from './engine-config';
export { MAX_LOG_RETENTION_HOURS } from './logs/log-store';
export { seedFile, type SeedFile, type SeedReport } from './seed/seed-file';
export { callMethod, problemOf } from './workbench';
export { isLoopbackHost, isWildcardHost } from './server/local-url';
export { LAUNCH_CODE_LIFETIME_MS } from './workbench/launch-codes';
export { parseMasterKey } from './storage/crypto';
export { WrongMasterKeyError } from './storage/vault-key';
export { backupVault, BackupError } from './storage/backup';
export { databaseNamed } from './storage/postgres/database-url';
export { SESSION_SECRET_RULE, sessionFromSecret } from './people/session-secret';
