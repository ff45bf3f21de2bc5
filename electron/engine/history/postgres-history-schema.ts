import type { Migration } from '../storage/migrations';
import type { MigrationLedger } from '../storage/postgres/migrate';

// Byte-by-byte text, as SQLite's BINARY collation and the vault's PostgreSQL schema compare it.
const TEXT = 'TEXT COLLATE "C"';

/**
 * The history's own migrations over PostgreSQL, apart from the vault's: in SQLite the history is a file of its own with
 * its own schema version (history-store.ts), so its tables have no twin in the vault's list, and its worker migrates
 * them without waiting for the vault's runner. Never edit an entry once shipped.
 */
export const HISTORY_LEDGER: MigrationLedger = { table: 'history_migrations', lock: '8389758372839124782' };

export const HISTORY_POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'request history and log lines',
    // The tables history-store.ts and logs/log-store.ts keep in SQLite, every replica writing to them: seq is the order
    // rows were written in, whichever replica wrote them.
    sql: `
      CREATE TABLE request_log (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id ${TEXT} NOT NULL,
        entry ${TEXT} NOT NULL,
        body BYTEA,
        answer ${TEXT},
        outbound ${TEXT}
      );
      CREATE INDEX request_log_id ON request_log(id);

      CREATE TABLE logs (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id ${TEXT} NOT NULL,
        created_at ${TEXT} NOT NULL,
        actor_id ${TEXT},
        actor_type ${TEXT},
        entity_type ${TEXT} NOT NULL,
        entity_id ${TEXT} NOT NULL,
        operation ${TEXT} NOT NULL,
        message ${TEXT} NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'one row per entry and log line id',
    // A batch whose COMMIT went through but whose answer was lost is written again by the worker's retry: each id is
    // kept once (its first copy), and the inserts skip an id already there.
    sql: `
      DELETE FROM request_log later USING request_log earlier WHERE later.id = earlier.id AND later.seq > earlier.seq;
      DROP INDEX request_log_id;
      CREATE UNIQUE INDEX request_log_id ON request_log(id);
      DELETE FROM logs later USING logs earlier WHERE later.id = earlier.id AND later.seq > earlier.seq;
      CREATE UNIQUE INDEX logs_id ON logs(id);
    `,
  },
];
