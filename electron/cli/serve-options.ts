import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { MAX_INTENT_TTL_SECONDS, MAX_LOG_RETENTION_HOURS, parseMasterKey, resolveConfig, seedFile, SESSION_SECRET_RULE, sessionFromSecret, type StartOptions } from '../engine';

/** A mistake in how serve was called, as opposed to a failure while starting: exit code 2. */
export class UsageError extends Error {}

const DEFAULTS = resolveConfig();
export const DEFAULT_DATA_DIR = '.tokenbench';
export const MASTER_KEY_ENV = 'TOKENBENCH_MASTER_KEY';
export const DATABASE_URL_ENV = 'TOKENBENCH_DATABASE_URL';
/** The folder of the workbench UI to serve, in place of the build found beside the CLI. */
export const UI_DIR_ENV = 'TOKENBENCH_UI_DIR';
const MAX_PORT = 65_535;

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  'in-memory': { type: 'boolean' },
  database: { type: 'string' },
  collections: { type: 'string' },
  proxies: { type: 'string' },
  seed: { type: 'string' },
  'header-prefix': { type: 'string' },
  'echo-port': { type: 'string' },
  'transaction-ttl': { type: 'string' },
  'proxy-timeout': { type: 'string' },
  'max-body': { type: 'string' },
  'max-expressions': { type: 'string' },
  'deny-private-destinations': { type: 'boolean' },
  'allow-private-destinations': { type: 'boolean' },
  'history-limit': { type: 'string' },
  'history-max-age': { type: 'string' },
  'history-answers': { type: 'boolean' },
  'history-answer-bytes': { type: 'string' },
  'allow-origin': { type: 'string', multiple: true },
  'public-url': { type: 'string', multiple: true },
  'allow-code': { type: 'boolean' },
  'code-dependencies': { type: 'string' },
  'token-intent-ttl': { type: 'string' },
  'allow-tenant-delete': { type: 'boolean' },
  'log-retention': { type: 'string' },
  'master-key-file': { type: 'string' },
  'identity-header': { type: 'string' },
  'trusted-proxy': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** Each flag's line in --help as [its value's name, what it does]; the type makes every flag have one. */
const HELP: { [Flag in keyof typeof OPTIONS]: [value: string, text: string] } = {
  host: ['HOST', `address to bind (default ${DEFAULTS.host}; one beyond loopback lets other machines in)`],
  port: ['N', `port of the API (default ${DEFAULTS.port}; 0 picks a free one)`],
  'data-dir': ['DIR', `keep the vault and its history in DIR (default ./${DEFAULT_DATA_DIR})`],
  'in-memory': ['', 'keep nothing: a throwaway vault'],
  database: ['URL', `keep everything in the PostgreSQL database at URL (postgres://user:password@host:port/db), which several serve replicas may share; or ${DATABASE_URL_ENV}, which keeps the password off the command line. Needs the master key (${MASTER_KEY_ENV} or --master-key-file, the same on every replica). Not with --data-dir or --in-memory: nothing of the vault is a file then (saved requests go to --collections DIR, default a temporary folder)`],
  collections: ['DIR', 'keep saved requests in DIR (default: collections/ in the data folder; a temporary one in memory)'],
  proxies: ['DIR', "serve the proxies and reactors of DIR's files (a .json per proxy, a .reactor.json per reactor, code in .js files beside it), reloaded on each change"],
  seed: ['FILE', 'create the applications and tokens FILE lists (JSON; see README)'],
  'header-prefix': ['P', `prefix of the service headers (default ${DEFAULTS.headerPrefix})`],
  'echo-port': ['N', `port of the built-in echo destination (default ${DEFAULTS.echoPort}; 0 turns it off)`],
  'transaction-ttl': ['SECONDS', `lifetime of a transaction (default ${DEFAULTS.transactionTtlSeconds})`],
  'proxy-timeout': ['MS', `destination timeout of the proxy (default ${DEFAULTS.proxyTimeoutMs})`],
  'max-body': ['BYTES', `largest request body (default ${DEFAULTS.maxBodyBytes})`],
  'max-expressions': ['N', `most token expressions in one /proxy or /detokenize request (default ${DEFAULTS.maxExpressions})`],
  'deny-private-destinations': ['', "refuse loopback, private and this machine's own addresses as destinations (default: allowed on loopback, refused beyond)"],
  'allow-private-destinations': ['', 'let the proxy and webhooks reach them even beyond loopback, where they are refused by default'],
  'history-limit': ['N', `request history entries kept, the oldest leaving first (default ${DEFAULTS.historyLimit})`],
  'history-max-age': ['DAYS', 'request history entries older than this leave (default 0: kept whatever their age)'],
  'history-answers': ['', "keep destinations' answer bodies in history, masked (default: not kept)"],
  'history-answer-bytes': ['BYTES', `largest answer body kept, 1024 to 1048576 (default ${DEFAULTS.historyAnswerBytes})`],
  'allow-origin': ['ORIGIN', 'let browser pages of ORIGIN (http://localhost:3000) call the API; repeatable (default: none)'],
  'public-url': ['URL', 'a name it is reached at (https://tokenbench.example.com, behind a reverse proxy): its Host and origin pass the guards, the first is the workbench address; repeatable'],
  'allow-code': ['', 'run code transforms and reactors beyond loopback, where they are refused by default (code runs as the server user)'],
  'code-dependencies': ['DIR', "node22 code's runtime.dependencies come from DIR/node_modules (default: none)"],
  'token-intent-ttl': ['SECONDS', `lifetime of a new token intent, at most ${MAX_INTENT_TTL_SECONDS} (default ${DEFAULTS.tokenIntentTtlSeconds})`],
  'allow-tenant-delete': ['', 'let DELETE /tenants/self wipe the vault, as deleting the tenant (default: refused with 422)'],
  'log-retention': ['HOURS', `how long GET /logs keeps its lines, at most ${MAX_LOG_RETENTION_HOURS} (default ${DEFAULTS.logRetentionHours})`],
  'master-key-file': ['FILE', `the vault's master key (32 bytes, base64) from FILE, or from ${MASTER_KEY_ENV}; none is written to the data folder (default: its master.key, made on a first start; required with --database)`],
  'identity-header': ['NAME', "trust header NAME, from a --trusted-proxy only, to name the workbench's person by a credential's name (default: none)"],
  'trusted-proxy': ['ADDR', 'address or CIDR range of the reverse proxy that sets --identity-header; repeatable (default: none)'],
  help: ['', 'this text'],
};

export const USAGE = [
  'Usage: tokenbench serve [options]',
  '',
  ...Object.entries(HELP).map(([flag, [value, text]]) => {
    const short = 'short' in OPTIONS[flag as keyof typeof OPTIONS] ? `-${flag[0]}, ` : '';
    return `  ${`${short}--${flag} ${value}`.padEnd(31)}${text}`;
  }),
  '',
  'Exit codes: 0 once stopped by Ctrl-C or SIGTERM (the history is written first), 1 when it cannot start',
  '(a port in use, an unusable data folder), 2 for options it cannot take.',
  '',
  `TOKENBENCH_SESSION_SECRET: the workbench owner's session, ${SESSION_SECRET_RULE}, kept across restarts`,
  '(default: a new one each start, in the Workbench address printed).',
  `${UI_DIR_ENV}: the folder of the workbench UI to serve (default: the build found beside the CLI).`,
  '',
].join('\n');

/** Whole numbers only: Number() alone would take "", "0x10" and "1e3". */
function wholeNumber(flag: string, value: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  const n = /^-?\d+$/.test(value) ? Number(value) : NaN;
  if (n >= min && n <= max) return n;
  const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
  throw new UsageError(`--${flag} must be a whole number ${range}, got ${value === '' ? 'nothing' : value}`);
}

/** A folder that must be there already: a mistyped path would otherwise serve nothing, silently. */
function existingFolder(flag: string, value: string): string {
  const folder = resolve(value);
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--${flag} ${value}: no such folder`);
  return folder;
}

const port = (flag: string, value: string | undefined) => wholeNumber(flag, value, 0, MAX_PORT);

/**
 * parseArgs takes `--port -1` for a flag missing its value ("argument is ambiguous"). A negative number is never one
 * of serve's flags, so it is joined to the flag before it, and the range check can say what is wrong with it.
 */
function joinNegativeValues(argv: string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const option = OPTIONS[argv[i].slice(2) as keyof typeof OPTIONS] as { type: string } | undefined;
    if (argv[i].startsWith('--') && option?.type === 'string' && /^-\d/.test(argv[i + 1] ?? '')) {
      joined.push(`${argv[i]}=${argv[++i]}`);
    } else {
      joined.push(argv[i]);
    }
  }
  return joined;
}

function parseFlags(argv: string[]) {
  try {
    return parseArgs({ args: joinNegativeValues(argv), strict: true, options: OPTIONS }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function readSeed(path: string) {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--seed ${path}: ${(error as Error).message.split(/, "|: "/)[0]}`);
  }
  const parsed = seedFile.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(file)'}: ${i.message}`).join('\n');
    throw new UsageError(`--seed ${path} is not a valid seed file:\n${issues}`);
  }
  return parsed.data;
}

/** The key given in the environment or a file; what is wrong with it is said without ever echoing it. */
function suppliedMasterKey(file: string | undefined, env: NodeJS.ProcessEnv): Buffer | undefined {
  const fromEnv = env[MASTER_KEY_ENV];
  if (file !== undefined && fromEnv !== undefined) throw new UsageError(`${MASTER_KEY_ENV} and --master-key-file exclude each other: give the key once`);
  if (fromEnv === undefined && file === undefined) return undefined;
  const [text, expected] = fromEnv !== undefined ? [fromEnv, `${MASTER_KEY_ENV} must be`] : [readKeyFile(file!), `--master-key-file ${file} must hold`];
  const key = parseMasterKey(text);
  if (!key) throw new UsageError(`${expected} 32 random bytes in base64 (make one with: openssl rand -base64 32)`);
  return key;
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--master-key-file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/**
 * The database from the flag or the environment, with what it cannot go with: a data folder (the vault would not be
 * in it) and a made-up master key (over a shared database there is no folder to keep a key file in). Errors here never
 * repeat the URL, which may hold a password.
 */
function databaseUrlOf(values: { database?: string; 'data-dir'?: string; 'in-memory'?: boolean }, masterKey: Buffer | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const fromEnv = env[DATABASE_URL_ENV];
  if (values.database !== undefined && fromEnv !== undefined) throw new UsageError(`${DATABASE_URL_ENV} and --database exclude each other: give the database once`);
  const url = values.database ?? fromEnv;
  if (url === undefined) return undefined;
  const given = values.database !== undefined ? '--database' : DATABASE_URL_ENV;
  if (values['data-dir'] !== undefined) throw new UsageError(`${given} and --data-dir exclude each other: the vault and its history are kept in the database (saved requests go to --collections DIR)`);
  if (values['in-memory']) throw new UsageError(`${given} and --in-memory exclude each other: the database keeps the vault`);
  if (masterKey === undefined) {
    throw new UsageError(`${given} needs the vault's master key from ${MASTER_KEY_ENV} or --master-key-file, the same on every replica: no data folder keeps one (make one with: openssl rand -base64 32)`);
  }
  return url;
}

export const SESSION_SECRET_VARIABLE = 'TOKENBENCH_SESSION_SECRET';

/** The owner's session secret from the environment, checked here so that a bad one is a usage error; never repeated. */
function sessionSecretOf(env: NodeJS.ProcessEnv): string | undefined {
  const secret = env[SESSION_SECRET_VARIABLE];
  if (secret === undefined) return undefined;
  if (sessionFromSecret(secret) === null) throw new UsageError(`${SESSION_SECRET_VARIABLE} must be ${SESSION_SECRET_RULE}; the value set is not (it is not shown)`);
  return secret;
}

export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): StartOptions | 'help' {
  const values = parseFlags(argv);
  if (values.help) return 'help';
  if (values['in-memory'] && values['data-dir']) throw new UsageError('--in-memory and --data-dir exclude each other');
  if (values['deny-private-destinations'] && values['allow-private-destinations']) {
    throw new UsageError('--deny-private-destinations and --allow-private-destinations exclude each other');
  }
  const apiPort = port('port', values.port) ?? DEFAULTS.port;
  const echoPort = port('echo-port', values['echo-port']) ?? DEFAULTS.echoPort;
  if (apiPort !== 0 && apiPort === echoPort) {
    const defaulted = values.port === undefined ? ' (--port by default)' : values['echo-port'] === undefined ? ' (--echo-port by default)' : '';
    throw new UsageError(`--port and --echo-port are both ${apiPort}${defaulted}: pick two ports`);
  }
  const masterKey = suppliedMasterKey(values['master-key-file'], env);
  const databaseUrl = databaseUrlOf(values, masterKey, env);
  const options: StartOptions = {
    host: values.host,
    port: apiPort,
    dataDir: values['in-memory'] || databaseUrl !== undefined ? null : resolve(values['data-dir'] ?? DEFAULT_DATA_DIR),
    databaseUrl,
    collectionsDir: values.collections === undefined ? undefined : resolve(values.collections),
    proxiesDir: values.proxies === undefined ? undefined : existingFolder('proxies', values.proxies),
    headerPrefix: values['header-prefix'],
    echoPort: echoPort === 0 ? null : echoPort,
    transactionTtlSeconds: wholeNumber('transaction-ttl', values['transaction-ttl'], 1),
    proxyTimeoutMs: wholeNumber('proxy-timeout', values['proxy-timeout'], 1),
    maxBodyBytes: wholeNumber('max-body', values['max-body'], 1),
    maxExpressions: wholeNumber('max-expressions', values['max-expressions'], 0),
    denyPrivateDestinations: values['allow-private-destinations'] ? false : values['deny-private-destinations'],
    historyLimit: wholeNumber('history-limit', values['history-limit'], 1, 1_000_000),
    historyMaxAgeDays: wholeNumber('history-max-age', values['history-max-age'], 0, 36_500),
    historyAnswers: values['history-answers'],
    historyAnswerBytes: wholeNumber('history-answer-bytes', values['history-answer-bytes'], 1024, 1024 * 1024),
    allowedOrigins: values['allow-origin'],
    publicUrls: values['public-url'],
    allowCode: values['allow-code'],
    tokenIntentTtlSeconds: wholeNumber('token-intent-ttl', values['token-intent-ttl'], 1, MAX_INTENT_TTL_SECONDS),
    logRetentionHours: wholeNumber('log-retention', values['log-retention'], 1, MAX_LOG_RETENTION_HOURS),
    codeDependenciesDir: values['code-dependencies'] === undefined ? undefined : resolve(values['code-dependencies']),
    seed: values.seed ? readSeed(values.seed) : undefined,
    allowTenantDelete: values['allow-tenant-delete'],
    masterKey,
    identityHeader: values['identity-header'],
    trustedProxies: values['trusted-proxy'],
    sessionSecret: sessionSecretOf(env),
  };
  // The engine's own check of its settings (header prefix, origins) runs here too, so what it refuses is a usage
  // error like every other bad flag rather than a failed start.
  try {
    resolveConfig(options);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return options;
}
