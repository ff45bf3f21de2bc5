import type { Migration } from '../migrations';

// Every text column compares and sorts byte by byte, as SQLite's default BINARY collation does, whatever collation the
// operator's database was created with: cursors over (created_at, id) and equality must give SQLite's answers.
const TEXT = 'TEXT COLLATE "C"';

/**
 * The PostgreSQL twin of MIGRATIONS (../migrations.ts), read by migrate.ts. The first entry is the schema SQLite's
 * migrations 1-27 leave, written at once; each later SQLite migration gets an entry here with the same version, which
 * the schema parity test (test/storage/postgres-schema.test.ts) holds to. Never edit an entry once shipped.
 *
 * Types: SQLite's INTEGER is 64-bit, so BIGINT (epoch ms, counters, sequences; connection.ts reads it as a number);
 * BLOB (sealed data) is BYTEA; JSON stays TEXT, since the code parses it itself and jsonb would rewrite its text.
 * `INTEGER PRIMARY KEY` row ids become identity columns; `WITHOUT ROWID` has no counterpart (every PostgreSQL table is
 * a heap with its primary key as an index). No column holds a boolean, no table is FTS, and no trigger exists.
 */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 27,
    name: 'the schema of SQLite migrations 1-27',
    sql: `
      CREATE TABLE settings (key ${TEXT} PRIMARY KEY, value ${TEXT} NOT NULL);

      CREATE TABLE applications (
        id ${TEXT} PRIMARY KEY,
        tenant_id ${TEXT} NOT NULL,
        name ${TEXT} NOT NULL,
        type ${TEXT} NOT NULL CHECK (type IN ('private', 'public', 'management')),
        permissions ${TEXT} NOT NULL,
        rules ${TEXT} NOT NULL,
        created_by ${TEXT},
        created_at ${TEXT} NOT NULL,
        modified_by ${TEXT},
        modified_at ${TEXT}
      );

      CREATE TABLE api_keys (
        id ${TEXT} PRIMARY KEY,
        application_id ${TEXT} NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
        key_hash ${TEXT} NOT NULL UNIQUE,
        created_by ${TEXT},
        created_at ${TEXT} NOT NULL,
        key_last4 ${TEXT}
      );
      CREATE INDEX api_keys_application ON api_keys(application_id);

      CREATE TABLE tokens (
        id ${TEXT} PRIMARY KEY,
        tenant_id ${TEXT} NOT NULL,
        type ${TEXT} NOT NULL,
        containers ${TEXT} NOT NULL,
        metadata ${TEXT} NOT NULL,
        mask ${TEXT},
        fingerprint ${TEXT},
        fingerprint_expression ${TEXT},
        search_indexes ${TEXT} NOT NULL,
        sealed BYTEA NOT NULL,
        expires_at ${TEXT},
        created_by ${TEXT},
        created_at ${TEXT} NOT NULL,
        modified_by ${TEXT},
        modified_at ${TEXT}
      );
      CREATE INDEX tokens_fingerprint ON tokens(type, fingerprint);
      -- SQLite's index also covers containers and metadata; a B-tree entry here must fit in about 2.7 KB, which
      -- metadata need not, so those two are read from the row.
      CREATE INDEX tokens_created ON tokens(created_at, id) INCLUDE (expires_at, type);
      CREATE INDEX tokens_expires ON tokens(expires_at) WHERE expires_at IS NOT NULL;

      CREATE TABLE token_search_terms (
        token_id ${TEXT} NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,
        term_hash ${TEXT} NOT NULL,
        PRIMARY KEY (token_id, term_hash)
      );
      CREATE INDEX token_search_terms_hash ON token_search_terms(term_hash);

      CREATE TABLE idempotency_keys (
        application_id ${TEXT} NOT NULL,
        key ${TEXT} NOT NULL,
        method ${TEXT} NOT NULL,
        path ${TEXT} NOT NULL,
        status BIGINT NOT NULL,
        sealed_response BYTEA NOT NULL,
        created_at ${TEXT} NOT NULL,
        PRIMARY KEY (application_id, key)
      );

      CREATE TABLE transactions (
        id ${TEXT} PRIMARY KEY,
        state ${TEXT} NOT NULL CHECK (state IN ('open', 'committed', 'rolled_back', 'expired')),
        created_by ${TEXT} NOT NULL,
        created_at ${TEXT} NOT NULL,
        expires_at ${TEXT} NOT NULL,
        ended_at ${TEXT}
      );
      CREATE INDEX transactions_open_expiry ON transactions(expires_at) WHERE state = 'open';
      CREATE INDEX transactions_ended ON transactions(ended_at) WHERE ended_at IS NOT NULL;
      CREATE INDEX transactions_created ON transactions(created_at, id);
      CREATE INDEX transactions_state_created ON transactions(state, created_at, id);
      CREATE INDEX transactions_ended_created ON transactions(created_at, id) WHERE ended_at IS NOT NULL;

      CREATE TABLE transaction_writes (
        transaction_id ${TEXT} NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
        seq BIGINT NOT NULL,
        op ${TEXT} NOT NULL CHECK (op IN ('create', 'update', 'delete')),
        token_id ${TEXT} NOT NULL,
        sealed BYTEA,
        enlisted_at ${TEXT} NOT NULL,
        enlisted_by ${TEXT},
        PRIMARY KEY (transaction_id, seq)
      );
      CREATE INDEX transaction_writes_token ON transaction_writes(token_id);

      CREATE TABLE remote_targets (
        id ${TEXT} PRIMARY KEY,
        name ${TEXT} NOT NULL,
        base_url ${TEXT} NOT NULL,
        sealed_key BYTEA NOT NULL,
        created_at ${TEXT} NOT NULL
      );

      CREATE TABLE secrets (
        name ${TEXT} PRIMARY KEY,
        sealed_value BYTEA NOT NULL,
        created_at ${TEXT} NOT NULL,
        updated_at ${TEXT} NOT NULL
      );

      CREATE TABLE kept_keys (
        key_id ${TEXT} PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
        application_id ${TEXT} NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
        purpose ${TEXT} NOT NULL CHECK (purpose IN ('workbench', 'export', 'runtime')),
        sealed BYTEA NOT NULL,
        UNIQUE (application_id, purpose)
      );

      CREATE TABLE token_terms_backlog (
        token_id ${TEXT} PRIMARY KEY REFERENCES tokens(id) ON DELETE CASCADE
      );

      CREATE TABLE proxies (
        id ${TEXT} PRIMARY KEY,
        name ${TEXT} NOT NULL,
        destination_url ${TEXT} NOT NULL,
        definition ${TEXT} NOT NULL,
        sealed BYTEA NOT NULL,
        state ${TEXT} NOT NULL,
        created_by ${TEXT} NOT NULL,
        created_at ${TEXT} NOT NULL,
        modified_by ${TEXT},
        modified_at ${TEXT}
      );
      CREATE INDEX proxies_created ON proxies(created_at, id);

      CREATE TABLE proxy_files (
        file ${TEXT} PRIMARY KEY,
        id ${TEXT} NOT NULL UNIQUE,
        sealed_key BYTEA NOT NULL,
        created_at ${TEXT} NOT NULL,
        kind ${TEXT} NOT NULL DEFAULT 'proxy' CHECK (kind IN ('proxy', 'reactor'))
      );

      CREATE TABLE reactors (
        id ${TEXT} PRIMARY KEY,
        name ${TEXT} NOT NULL,
        definition ${TEXT} NOT NULL,
        sealed BYTEA NOT NULL,
        state ${TEXT} NOT NULL,
        created_by ${TEXT} NOT NULL,
        created_at ${TEXT} NOT NULL,
        modified_by ${TEXT},
        modified_at ${TEXT}
      );
      CREATE INDEX reactors_created ON reactors(created_at, id);

      CREATE TABLE reactor_results (
        id ${TEXT} PRIMARY KEY,
        reactor_id ${TEXT} NOT NULL,
        state ${TEXT} NOT NULL CHECK (state IN ('pending', 'done')),
        sealed BYTEA,
        created_at ${TEXT} NOT NULL,
        expires_at ${TEXT} NOT NULL
      );
      CREATE INDEX reactor_results_expiry ON reactor_results(expires_at);

      CREATE TABLE token_intents (
        id ${TEXT} PRIMARY KEY,
        type ${TEXT} NOT NULL,
        sealed BYTEA NOT NULL,
        fingerprint ${TEXT},
        details ${TEXT},
        created_by ${TEXT} NOT NULL,
        created_at ${TEXT} NOT NULL,
        expires_at ${TEXT} NOT NULL,
        held_by ${TEXT}
      );
      CREATE INDEX token_intents_expiry ON token_intents (expires_at);
      CREATE INDEX token_intents_held ON token_intents (held_by) WHERE held_by IS NOT NULL;

      CREATE TABLE client_keys (
        id ${TEXT} PRIMARY KEY,
        sealed_private BYTEA NOT NULL,
        expires_at ${TEXT} NOT NULL,
        created_by ${TEXT},
        created_at ${TEXT} NOT NULL
      );
      CREATE INDEX client_keys_expiry ON client_keys(expires_at);

      CREATE TABLE sessions (
        id ${TEXT} PRIMARY KEY,
        application_id ${TEXT} NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
        key_hash ${TEXT} NOT NULL UNIQUE,
        nonce_hash ${TEXT} NOT NULL UNIQUE,
        permissions ${TEXT},
        rules ${TEXT},
        authorized_by ${TEXT},
        authorized_at ${TEXT},
        created_at ${TEXT} NOT NULL,
        expires_at ${TEXT} NOT NULL
      );
      CREATE INDEX sessions_expiry ON sessions(expires_at);

      -- A sequence hands out seq when the row is written, not when its transaction commits: readers must not treat
      -- the highest seq seen as "everything before it is here".
      CREATE TABLE event_outbox (
        seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        event ${TEXT} NOT NULL
      );

      CREATE TABLE webhook_signing_key (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY CHECK (id = 1),
        sealed_private BYTEA NOT NULL,
        public_pem ${TEXT} NOT NULL,
        created_at ${TEXT} NOT NULL
      );
      CREATE TABLE webhooks (
        id ${TEXT} PRIMARY KEY,
        name ${TEXT} NOT NULL,
        url ${TEXT} NOT NULL,
        notify_email ${TEXT},
        events ${TEXT} NOT NULL,
        status ${TEXT} NOT NULL CHECK (status IN ('enabled', 'disabled')),
        created_by ${TEXT} NOT NULL,
        created_at ${TEXT} NOT NULL,
        modified_by ${TEXT},
        modified_at ${TEXT}
      );
      -- AUTOINCREMENT (a seq never handed out twice) is what a sequence does anyway.
      CREATE TABLE webhook_deliveries (
        seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        id ${TEXT} NOT NULL UNIQUE,
        webhook_id ${TEXT} NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_id ${TEXT} NOT NULL,
        event_type ${TEXT} NOT NULL,
        event ${TEXT} NOT NULL,
        state ${TEXT} NOT NULL CHECK (state IN ('pending', 'delivered', 'exhausted')),
        attempts BIGINT NOT NULL DEFAULT 0,
        next_at BIGINT NOT NULL,
        last_status BIGINT,
        latency_ms BIGINT,
        error ${TEXT},
        body ${TEXT},
        created_at ${TEXT} NOT NULL,
        attempted_at ${TEXT}
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries(state, next_at);
      CREATE INDEX webhook_deliveries_of ON webhook_deliveries(webhook_id, seq);
      CREATE INDEX webhook_deliveries_finished ON webhook_deliveries(webhook_id, seq) WHERE state != 'pending';

      CREATE TABLE tenant (
        id ${TEXT} PRIMARY KEY,
        owner_id ${TEXT} NOT NULL,
        name ${TEXT} NOT NULL,
        settings ${TEXT} NOT NULL,
        created_by ${TEXT} NOT NULL,
        created_at ${TEXT} NOT NULL,
        modified_by ${TEXT},
        modified_at ${TEXT}
      );
      CREATE TABLE active_tokens (
        month ${TEXT} NOT NULL,
        token_id ${TEXT} NOT NULL,
        PRIMARY KEY (month, token_id)
      );

      CREATE TABLE workbench_credentials (
        id ${TEXT} PRIMARY KEY,
        name ${TEXT} NOT NULL UNIQUE,
        secret_hash ${TEXT} NOT NULL UNIQUE,
        created_at ${TEXT} NOT NULL,
        last_used_at ${TEXT}
      );
      CREATE TABLE workbench_sessions (
        hash ${TEXT} PRIMARY KEY,
        credential_id ${TEXT} NOT NULL REFERENCES workbench_credentials(id) ON DELETE CASCADE,
        expires_at ${TEXT} NOT NULL
      );
      CREATE INDEX workbench_sessions_of ON workbench_sessions(credential_id);
    `,
  },
];
