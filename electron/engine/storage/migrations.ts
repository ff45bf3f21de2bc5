import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';

/**
 * Versioned schema. Append new migrations; never edit one that has shipped: start-up refuses a database whose
 * applied migration no longer matches its recorded checksum, because the schema would silently diverge.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'vault, access and history',
    sql: `
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);

      CREATE TABLE applications (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL,
        name TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('private', 'public', 'management')),
        permissions TEXT NOT NULL,
        rules TEXT NOT NULL,
        created_by TEXT,
        created_at TEXT NOT NULL,
        modified_by TEXT,
        modified_at TEXT
      );

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
        key_hash TEXT NOT NULL UNIQUE,
        created_by TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX api_keys_application ON api_keys(application_id);

      -- Token data and everything derived from it that could reveal it lives only in 'sealed' (AES-256-GCM).
      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        tenant_id TEXT NOT NULL,
        type TEXT NOT NULL,
        containers TEXT NOT NULL,
        metadata TEXT NOT NULL,
        mask TEXT,
        fingerprint TEXT,
        fingerprint_expression TEXT,
        search_indexes TEXT NOT NULL,
        sealed BLOB NOT NULL,
        expires_at TEXT,
        created_by TEXT,
        created_at TEXT NOT NULL,
        modified_by TEXT,
        modified_at TEXT
      );
      CREATE INDEX tokens_fingerprint ON tokens(type, fingerprint);
      CREATE INDEX tokens_created ON tokens(created_at, id);
      CREATE INDEX tokens_expires ON tokens(expires_at) WHERE expires_at IS NOT NULL;

      -- Keyed hashes of each search-index value, so 'data:' searches match without plaintext.
      CREATE TABLE token_search_terms (
        token_id TEXT NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,
        term_hash TEXT NOT NULL,
        PRIMARY KEY (token_id, term_hash)
      ) WITHOUT ROWID;
      CREATE INDEX token_search_terms_hash ON token_search_terms(term_hash);

      CREATE TABLE idempotency_keys (
        application_id TEXT NOT NULL,
        key TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        status INTEGER NOT NULL,
        sealed_response BLOB NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (application_id, key)
      );

      -- One JSON document per request: the history is written in batches and read whole, never queried by column.
      CREATE TABLE request_log (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        entry TEXT NOT NULL
      );
      CREATE INDEX request_log_id ON request_log(id);
    `,
  },
  {
    version: 2,
    name: 'transactions',
    sql: `
      CREATE TABLE transactions (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL CHECK (state IN ('open', 'committed', 'rolled_back', 'expired')),
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        ended_at TEXT
      );
      CREATE INDEX transactions_open_expiry ON transactions(expires_at) WHERE state = 'open';
      CREATE INDEX transactions_ended ON transactions(ended_at) WHERE ended_at IS NOT NULL;

      -- Writes held back until commit, in enlisting order. 'sealed' holds the whole write (token data included,
      -- AES-256-GCM like token rows) and is cleared when the transaction ends; op and token_id stay as its record.
      CREATE TABLE transaction_writes (
        transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        op TEXT NOT NULL CHECK (op IN ('create', 'update', 'delete')),
        token_id TEXT NOT NULL,
        sealed BLOB,
        enlisted_at TEXT NOT NULL,
        PRIMARY KEY (transaction_id, seq)
      ) WITHOUT ROWID;
      CREATE INDEX transaction_writes_token ON transaction_writes(token_id);
    `,
  },
  {
    version: 3,
    name: 'request history moves to its own file',
    // The history now lives in history.sqlite, written by a worker thread. Entries from before this upgrade are not
    // carried over (pre-release: nothing to keep). Dropping the table drops its index request_log_id with it.
    sql: `
      DROP TABLE request_log;
    `,
  },
  {
    version: 4,
    name: 'workbench keys',
    // The one key per application the workbench sends with. Its plaintext is kept sealed, so the engine can send it
    // again; revoking the key (deleting its api_keys row) removes it here too.
    sql: `
      CREATE TABLE workbench_keys (
        key_id TEXT PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
        application_id TEXT NOT NULL UNIQUE REFERENCES applications(id) ON DELETE CASCADE,
        sealed BLOB NOT NULL
      );
    `,
  },
  {
    version: 5,
    name: 'who enlisted each transaction write',
    // The application whose request staged the write, for the workbench's view of a transaction; null on rows staged
    // before this upgrade.
    sql: `
      ALTER TABLE transaction_writes ADD COLUMN enlisted_by TEXT;
    `,
  },
  {
    version: 6,
    name: 'remote targets',
    // Services the Composer may send to instead of this engine. The key the user pasted is kept sealed, so the engine
    // can send with it; it never leaves the engine whole.
    sql: `
      CREATE TABLE remote_targets (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        base_url TEXT NOT NULL,
        sealed_key BLOB NOT NULL,
        created_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 7,
    name: 'transactions listed a page at a time',
    // The workbench lists kept transactions newest first, a page at a time: all of them, one state, or the ended ones.
    // Each list walks its own index from a cursor and stops after a page; the per-state index also counts them.
    sql: `
      CREATE INDEX transactions_created ON transactions(created_at, id);
      CREATE INDEX transactions_state_created ON transactions(state, created_at, id);
      CREATE INDEX transactions_ended_created ON transactions(created_at, id) WHERE ended_at IS NOT NULL;
    `,
  },
  {
    version: 8,
    name: 'token lists filter in their index',
    // Lists newest first (the Composer's completion, the Tokens page) walk this index and test each token's type,
    // containers, metadata and expiry; with those in the index, a token that does not match is passed over without
    // reading its row, which holds its sealed data too.
    sql: `
      DROP INDEX tokens_created;
      CREATE INDEX tokens_created ON tokens(created_at, id, expires_at, type, containers, metadata);
    `,
  },
  {
    version: 9,
    name: 'secrets',
    // Credentials that saved requests refer to by name (`${secret:NAME}`) instead of holding them in their files. Each
    // value is sealed and bound to its name; the engine puts it in as a request leaves.
    sql: `
      CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        sealed_value BLOB NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 10,
    name: 'kept keys: the workbench key and the export key',
    // Besides the key the workbench sends with, each application may have one key its seed files carry, kept sealed so
    // every export writes the same key instead of minting another. Revoking either (deleting its api_keys row) removes
    // it here too; the workbench keys made so far are carried over.
    sql: `
      CREATE TABLE kept_keys (
        key_id TEXT PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
        application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
        purpose TEXT NOT NULL CHECK (purpose IN ('workbench', 'export')),
        sealed BLOB NOT NULL,
        UNIQUE (application_id, purpose)
      );
      INSERT INTO kept_keys (key_id, application_id, purpose, sealed) SELECT key_id, application_id, 'workbench', sealed FROM workbench_keys;
      DROP TABLE workbench_keys;
    `,
  },
  {
    version: 11,
    name: 'card and metadata search terms',
    // The workbench finds cards by their details and tokens by their metadata values through keyed hashes in
    // token_search_terms, which the vault derives as it writes. Tokens written before have none: they are listed here,
    // and the engine derives theirs after it starts, in batches (vault/term-backlog.ts), each taking its tokens off.
    sql: `
      CREATE TABLE token_terms_backlog (
        token_id TEXT PRIMARY KEY REFERENCES tokens(id) ON DELETE CASCADE
      ) WITHOUT ROWID;
      INSERT INTO token_terms_backlog SELECT id FROM tokens WHERE type IN ('card', 'card_number') OR metadata <> '{}';
    `,
  },
  {
    version: 12,
    name: "keys' last four",
    // The workbench names every key by its last four characters, as History does; only a hash of the rest is kept.
    // Keys made before have none to give, and are named by their id.
    sql: `
      ALTER TABLE api_keys ADD COLUMN key_last4 TEXT;
    `,
  },
  {
    version: 13,
    name: 'pre-configured proxies',
    // A proxy's invocation key and its configuration (which holds the developer's credentials for the destination)
    // are sealed under the master key; the rest of its definition (transforms, flags) is plain JSON.
    sql: `
      CREATE TABLE proxies (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        destination_url TEXT NOT NULL,
        definition TEXT NOT NULL,
        sealed BLOB NOT NULL,
        state TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        modified_by TEXT,
        modified_at TEXT
      );
      CREATE INDEX proxies_created ON proxies(created_at, id);
    `,
  },
  {
    version: 14,
    name: 'proxies loaded from files',
    // A file proxy's definition is its file; the engine keeps only who it is, by the file's path in the proxies folder,
    // so its id and its invocation key (sealed) survive reloads and restarts.
    sql: `
      CREATE TABLE proxy_files (
        file TEXT PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        sealed_key BLOB NOT NULL,
        created_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 15,
    name: 'kept keys: the runtime key',
    // Code transforms (and reactors) call the engine with a key of their application, which only the engine can hold:
    // a third purpose of kept key. SQLite cannot widen a CHECK in place, so the table is made again, rows carried over.
    sql: `
      CREATE TABLE kept_keys_next (
        key_id TEXT PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
        application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
        purpose TEXT NOT NULL CHECK (purpose IN ('workbench', 'export', 'runtime')),
        sealed BLOB NOT NULL,
        UNIQUE (application_id, purpose)
      );
      INSERT INTO kept_keys_next (key_id, application_id, purpose, sealed) SELECT key_id, application_id, purpose, sealed FROM kept_keys;
      DROP TABLE kept_keys;
      ALTER TABLE kept_keys_next RENAME TO kept_keys;
    `,
  },
  {
    version: 17,
    name: 'reactors',
    // A reactor's code and configuration (which holds the developer's credentials) are sealed under the master key;
    // its runtime and application are plain JSON.
    sql: `
      CREATE TABLE reactors (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        definition TEXT NOT NULL,
        sealed BLOB NOT NULL,
        state TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        modified_by TEXT,
        modified_at TEXT
      );
      CREATE INDEX reactors_created ON reactors(created_at, id);
    `,
  },
  {
    version: 18,
    name: 'asynchronous reactor results',
    // What an asynchronous react answered, kept for a bounded time; the answer may hold what the code returned of
    // detokenized data, so it is sealed. A row still pending when the engine starts ran in a process that is gone.
    sql: `
      CREATE TABLE reactor_results (
        id TEXT PRIMARY KEY,
        reactor_id TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
        sealed BLOB,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      );
      CREATE INDEX reactor_results_expiry ON reactor_results(expires_at);
    `,
  },
  {
    version: 19,
    name: 'token intents',
    // data is sealed like a token's; details holds only the card or bank summary a GET shows. held_by: the open
    // transaction that converted the intent, which a rollback gives back and a commit consumes.
    sql: `
      CREATE TABLE token_intents (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        sealed BLOB NOT NULL,
        fingerprint TEXT,
        details TEXT,
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        held_by TEXT
      );
      CREATE INDEX token_intents_expiry ON token_intents (expires_at);
      CREATE INDEX token_intents_held ON token_intents (held_by) WHERE held_by IS NOT NULL;
    `,
  },
  {
    version: 20,
    name: 'reactors loaded from files',
    // Reactor files share the proxies folder and its path-identity table: a row says which kind its file serves, so
    // an identity never passes from one kind to the other. A reactor has no key: its sealed key is empty.
    sql: `
      ALTER TABLE proxy_files ADD COLUMN kind TEXT NOT NULL DEFAULT 'proxy' CHECK (kind IN ('proxy', 'reactor'));
    `,
  },
  {
    version: 21,
    name: 'client encryption keys',
    // The private half of each key pair is sealed under the master key (bound to the key's id); the public half is
    // answered once, at creation, and not kept.
    sql: `
      CREATE TABLE client_keys (
        id TEXT PRIMARY KEY,
        sealed_private BLOB NOT NULL,
        expires_at TEXT NOT NULL,
        created_by TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX client_keys_expiry ON client_keys(expires_at);
    `,
  },
  {
    version: 22,
    name: 'sessions',
    // A session is a short-lived credential of a public application: its key and its one-time nonce are kept only as
    // keyed hashes, like application keys; what an authorization granted is plain JSON, null until then.
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        application_id TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
        key_hash TEXT NOT NULL UNIQUE,
        nonce_hash TEXT NOT NULL UNIQUE,
        permissions TEXT,
        rules TEXT,
        authorized_by TEXT,
        authorized_at TEXT,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
      );
      CREATE INDEX sessions_expiry ON sessions(expires_at);
    `,
  },
  {
    version: 23,
    name: 'event outbox',
    // An event is stored in the transaction of the change that raises it and removed once its deliveries are stored:
    // seq keeps the order they were raised in; the row is the event alone, with no index to keep, since a subscribed
    // token.read stores one per read.
    sql: `
      CREATE TABLE event_outbox (
        seq INTEGER PRIMARY KEY,
        event TEXT NOT NULL
      );
    `,
  },
  {
    version: 24,
    name: 'webhooks',
    // The install's one signing key pair (its private half sealed), the webhooks, and one row per event and webhook
    // to deliver: pending rows are what a restart resumes, finished ones the recent deliveries the workbench shows.
    sql: `
      CREATE TABLE webhook_signing_key (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        sealed_private BLOB NOT NULL,
        public_pem TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        url TEXT NOT NULL,
        notify_email TEXT,
        events TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('enabled', 'disabled')),
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        modified_by TEXT,
        modified_at TEXT
      );
      CREATE TABLE webhook_deliveries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_id TEXT NOT NULL,
        event_type TEXT NOT NULL,
        event TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'exhausted')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at INTEGER NOT NULL,
        last_status INTEGER,
        latency_ms INTEGER,
        error TEXT,
        body TEXT,
        created_at TEXT NOT NULL,
        attempted_at TEXT
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_at);
      CREATE INDEX webhook_deliveries_of ON webhook_deliveries(webhook_id, seq);
    `,
  },
  {
    version: 25,
    name: 'tenant and monthly active tokens',
    // The one tenant's name and the settings the API set (keys left out are at their defaults); its id is the
    // settings row tenant_id, which every token already carries. A token is active in a month when it was created,
    // read or used in it: one row per token and UTC month ('2030-01'), older months purged.
    sql: `
      CREATE TABLE tenant (
        id TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL,
        name TEXT NOT NULL,
        settings TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at TEXT NOT NULL,
        modified_by TEXT,
        modified_at TEXT
      );
      CREATE TABLE active_tokens (
        month TEXT NOT NULL,
        token_id TEXT NOT NULL,
        PRIMARY KEY (month, token_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 26,
    name: 'finished webhook deliveries',
    // Recording each attempt prunes a webhook's finished deliveries to the newest kept; without this index that walked
    // every row of the webhook, its pending backlog included, so a backlog made each delivery slower still.
    sql: `
      CREATE INDEX webhook_deliveries_finished ON webhook_deliveries(webhook_id, seq) WHERE state != 'pending';
    `,
  },
  {
    version: 27,
    name: 'workbench credentials',
    // A person's credential is kept only as the SHA-256 of its 256-bit secret, as is each session it signed in: a
    // copy of the data folder holds nothing that signs anyone in. Deleting a credential (a revoke) ends its sessions.
    sql: `
      CREATE TABLE workbench_credentials (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        secret_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        last_used_at TEXT
      );
      CREATE TABLE workbench_sessions (
        hash TEXT PRIMARY KEY,
        credential_id TEXT NOT NULL REFERENCES workbench_credentials(id) ON DELETE CASCADE,
        expires_at TEXT NOT NULL
      );
      CREATE INDEX workbench_sessions_of ON workbench_sessions(credential_id);
    `,
  },
];

export const checksum = (m: Migration) => createHash('sha256').update(m.sql).digest('hex');

export class MigrationError extends Error {}

/**
 * The migrations a database still needs, given the versions (and checksums) it recorded; shared by the SQLite and
 * PostgreSQL runners. Refuses an applied migration whose text changed.
 */
export function pendingMigrations(migrations: readonly Migration[], applied: ReadonlyMap<number, string>): Migration[] {
  return migrations.filter((m) => {
    const recorded = applied.get(m.version);
    if (recorded === undefined) return true;
    if (recorded !== checksum(m)) {
      throw new MigrationError(
        `Migration ${m.version} (${m.name}) was edited after it was applied to this database; add a new migration instead`,
      );
    }
    return false;
  });
}

export function applyMigrations(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = new Map(
    (db.prepare('SELECT version, checksum FROM schema_migrations').all() as { version: number; checksum: string }[]).map(
      (r) => [r.version, r.checksum],
    ),
  );
  for (const m of pendingMigrations(migrations, applied)) {
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)').run(
        m.version,
        m.name,
        checksum(m),
        new Date().toISOString(),
      );
    })();
  }
}
