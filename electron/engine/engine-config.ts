import { isIP } from 'node:net';
import { HOSTED_EXPRESSION_LIMIT } from './expressions';
import { normalizeOrigin } from './server/cross-origin';
import { checkDatabaseUrl } from './storage/postgres/database-url';
import { DEFAULT_LOG_RETENTION_HOURS, MAX_LOG_RETENTION_HOURS } from './logs/log-store';

/** Everything a caller (CLI, Electron main, a test) can set when starting the engine. */
export interface EngineConfig {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** null keeps the vault in memory. */
  dataDir: string | null;
  /**
   * The PostgreSQL database (postgres:// or postgresql://) that keeps the vault, its history and every store, shared
   * by every replica started on it; null: SQLite, in `dataDir` or in memory.
   */
  databaseUrl: string | null;
  /** Prefix of every service header: BT-API-KEY, BT-PROXY-URL, … */
  headerPrefix: string;
  /** Built-in echo destination; null turns it off, 0 picks a free port. */
  echoPort: number | null;
  transactionTtlSeconds: number;
  proxyTimeoutMs: number;
  maxBodyBytes: number;
  /** Expressions one request may hold, a /proxy body and a /detokenize body alike; their cost has its own budget. */
  maxExpressions: number;
  denyPrivateDestinations: boolean;
  /** Browser origins (`http://localhost:3000`) allowed to call the wire API, besides the workbench's own. */
  allowedOrigins: string[];
  /**
   * The origins (`https://tokenbench.example.com`) this engine is reached at besides its loopback names, as behind a
   * reverse proxy: their Host values and origins pass the guards as its own, and the first is the workbench's address.
   */
  publicUrls: string[];
  /** Whether the code runtime (code transforms, reactors) runs when the engine listens beyond loopback; on loopback it always does. */
  allowCode: boolean;
  /** How many request-log entries the history keeps. */
  historyLimit: number;
  /** Entries older than this many days leave the history; 0 keeps them whatever their age. */
  historyMaxAgeDays: number;
  /** Whether history keeps the body of a destination's answer to the proxy, masked before it is stored. */
  historyAnswers: boolean;
  /** The largest answer body history keeps (after decompression); a larger one is kept as a note of its size. */
  historyAnswerBytes: number;
  /** The folder of saved requests; null: `collections/` in the data folder, or a temporary one for an in-memory vault. */
  collectionsDir: string | null;
  /** The folder whose node_modules holds the `runtime.dependencies` of node22 code; null: none, so any is unavailable. */
  codeDependenciesDir: string | null;
  /** `--proxies DIR`: load pre-configured proxies from DIR's files, over the folder Settings chose; null: Settings' folder. */
  proxiesDir: string | null;
  /** How long a new token intent lives, in seconds: 24 h as the vendor's, at most 48 h (its quota). */
  tokenIntentTtlSeconds: number;
  /**
   * How long node-bt code may run in a synchronous call, a proxy's code transform or a `react` (the vendor's 30 s), and
   * the most a synchronous node22 `react` may run whatever its `timeout`; tests shorten it.
   */
  codeSyncLimitMs: number;
  /** How long an asynchronous node-bt react may run: the vendor's 5 minutes; tests shorten it. */
  reactorAsyncLimitMs: number;
  /** A legacy reactor callback's first retry after a failure (the vendor's old 10 s, doubling); tests shorten it. */
  reactorCallbackFirstRetryMs: number;
  /** Whether DELETE /tenants/self may wipe the vault (`--allow-tenant-delete`, or Settings); refused (422) otherwise. */
  allowTenantDelete: boolean;
  /** The waits before a failed webhook delivery's 2nd, 3rd, … attempt (10 s, 1 min, 5 min, 30 min, 2 h); tests shorten them. */
  webhookRetryDelaysMs: number[];
  /** How many hours `GET /logs` keeps its lines: the vendor's 24 by default, at most 30 days. */
  logRetentionHours: number;
  /**
   * A header an authenticating reverse proxy sets to a person's credential name, trusted only from `trustedProxies`;
   * null: none is trusted (the default).
   */
  identityHeader: string | null;
  /** Addresses or CIDR ranges (`10.0.0.5`, `10.0.0.0/8`) whose connections may carry the identity header. */
  trustedProxies: string[];
  /** better-sqlite3 binary for another ABI (Electron). */
  nativeBinding?: string;
  /** Diagnostic lines (never token data). Default: stderr. */
  log: (line: string) => void;
}

export const DEFAULT_PORT = 4780;
export const DEFAULT_ECHO_PORT = 4781;
export const DEFAULT_INTENT_TTL_SECONDS = 24 * 60 * 60;
export const MAX_INTENT_TTL_SECONDS = 48 * 60 * 60;

/** A header's name (RFC 9110 token characters); the workbench's own headers and the Host and Origin it guards are refused. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESERVED_HEADERS = new Set(['host', 'origin', 'cookie', 'authorization', 'content-type', 'content-length', 'x-tokenbench-session', 'x-tokenbench-page']);

/** A CIDR suffix, when given, is within its family's bits. */
function isAddressOrRange(value: string): boolean {
  const [ip, prefix, ...rest] = value.split('/');
  const family = isIP(ip);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

function checkIdentityHeader({ identityHeader, trustedProxies }: EngineConfig): void {
  if (identityHeader === null) {
    if (trustedProxies.length > 0) throw new Error('--trusted-proxy needs --identity-header: it names the addresses whose identity header is trusted');
    return;
  }
  if (!HEADER_NAME.test(identityHeader) || RESERVED_HEADERS.has(identityHeader.toLowerCase())) {
    throw new Error(`--identity-header must be a header's name of your own (X-Forwarded-User, say), got "${identityHeader}"`);
  }
  if (trustedProxies.length === 0) throw new Error('--identity-header needs --trusted-proxy ADDR: the reverse proxy whose header is trusted (no address is trusted by default)');
  const wrong = trustedProxies.find((address) => !isAddressOrRange(address));
  if (wrong !== undefined) throw new Error(`--trusted-proxy takes an IP address or a CIDR range (10.0.0.5, 10.0.0.0/8), got "${wrong}"`);
}

export function resolveConfig(partial: Partial<EngineConfig> = {}): EngineConfig {
  const config: EngineConfig = {
    host: '127.0.0.1',
    port: DEFAULT_PORT,
    dataDir: null,
    databaseUrl: null,
    headerPrefix: 'BT',
    echoPort: DEFAULT_ECHO_PORT,
    transactionTtlSeconds: 3600,
    proxyTimeoutMs: 25_000,
    maxBodyBytes: 1024 * 1024,
    maxExpressions: HOSTED_EXPRESSION_LIMIT,
    denyPrivateDestinations: false,
    allowedOrigins: [],
    publicUrls: [],
    allowCode: false,
    historyLimit: 10_000,
    historyMaxAgeDays: 0,
    historyAnswers: false,
    historyAnswerBytes: 64 * 1024,
    collectionsDir: null,
    codeDependenciesDir: null,
    proxiesDir: null,
    tokenIntentTtlSeconds: DEFAULT_INTENT_TTL_SECONDS,
    codeSyncLimitMs: 30_000,
    reactorAsyncLimitMs: 5 * 60_000,
    reactorCallbackFirstRetryMs: 10_000,
    allowTenantDelete: false,
    webhookRetryDelaysMs: [10_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000],
    logRetentionHours: DEFAULT_LOG_RETENTION_HOURS,
    identityHeader: null,
    trustedProxies: [],
    log: (line) => process.stderr.write(line + '\n'),
    ...Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined)),
  };
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(config.headerPrefix)) {
    throw new Error(`Header prefix must be letters and digits, got "${config.headerPrefix}"`);
  }
  if (!Number.isInteger(config.tokenIntentTtlSeconds) || config.tokenIntentTtlSeconds < 1 || config.tokenIntentTtlSeconds > MAX_INTENT_TTL_SECONDS) {
    throw new Error(`A token intent's time to live must be a whole number of seconds from 1 to ${MAX_INTENT_TTL_SECONDS} (48 h)`);
  }
  if (!Number.isInteger(config.logRetentionHours) || config.logRetentionHours < 1 || config.logRetentionHours > MAX_LOG_RETENTION_HOURS) {
    throw new Error(`The logs' retention must be a whole number of hours from 1 to ${MAX_LOG_RETENTION_HOURS} (30 days)`);
  }
  checkIdentityHeader(config);
  if (config.databaseUrl !== null) checkDatabaseUrl(config.databaseUrl);
  const origins = (values: string[], what: string) =>
    values.map((value) => {
      const origin = normalizeOrigin(value);
      if (typeof origin !== 'string') throw new Error(`${what} ${origin.problem}`);
      return origin;
    });
  config.allowedOrigins = origins(config.allowedOrigins, 'Allowed origin');
  config.publicUrls = origins(config.publicUrls, 'Public URL');
  return config;
}
