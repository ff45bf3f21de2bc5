import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { seedFile, startEngine, type Engine, type StartOptions } from '../engine';

const USAGE = `Usage: tokenbench serve [options]

  --host HOST                    address to bind (default 127.0.0.1)
  --port N                       port of the API (default 4780; 0 picks a free one)
  --data-dir DIR                 keep the vault in DIR (default ./.tokenbench)
  --in-memory                    keep nothing: a throwaway vault
  --seed FILE                    create the applications and tokens FILE lists (JSON; see README)
  --header-prefix P              prefix of the service headers (default BT)
  --echo-port N                  port of the built-in echo destination (default 4781; 0 turns it off)
  --transaction-ttl SECONDS      lifetime of a transaction (default 3600)
  --proxy-timeout MS             destination timeout of the proxy (default 25000)
  --max-body BYTES               largest request body (default 1048576)
  --max-expressions N            most token expressions in one /proxy or /detokenize request (default 20)
  --deny-private-destinations    refuse loopback, private-network and this machine's own addresses as proxy destinations
  --allow-origin ORIGIN          let browser pages of ORIGIN (http://localhost:3000) call the API; repeatable
  -h, --help                     this text
`;

class UsageError extends Error {}

function integer(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} takes a whole number of at least ${min}, got "${value}"`);
  return n;
}

export function parseServeArgs(argv: string[]): StartOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'in-memory': { type: 'boolean' },
      seed: { type: 'string' },
      'header-prefix': { type: 'string' },
      'echo-port': { type: 'string' },
      'transaction-ttl': { type: 'string' },
      'proxy-timeout': { type: 'string' },
      'max-body': { type: 'string' },
      'max-expressions': { type: 'string' },
      'deny-private-destinations': { type: 'boolean' },
      'allow-origin': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  if (values['in-memory'] && values['data-dir']) throw new UsageError('--in-memory and --data-dir exclude each other');
  const echoPort = integer('echo-port', values['echo-port'], 0);
  let seed;
  if (values.seed) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(values.seed, 'utf8'));
    } catch (error) {
      throw new UsageError(`--seed ${values.seed}: ${(error as Error).message.split(/, "|: "/)[0]}`);
    }
    const parsed = seedFile.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(file)'}: ${i.message}`).join('\n');
      throw new UsageError(`--seed ${values.seed} is not a valid seed file:\n${issues}`);
    }
    seed = parsed.data;
  }
  return {
    host: values.host,
    port: integer('port', values.port, 0),
    dataDir: values['in-memory'] ? null : resolve(values['data-dir'] ?? '.tokenbench'),
    headerPrefix: values['header-prefix'],
    echoPort: echoPort === 0 ? null : echoPort,
    transactionTtlSeconds: integer('transaction-ttl', values['transaction-ttl'], 1),
    proxyTimeoutMs: integer('proxy-timeout', values['proxy-timeout'], 1),
    maxBodyBytes: integer('max-body', values['max-body'], 1),
    maxExpressions: integer('max-expressions', values['max-expressions'], 0),
    denyPrivateDestinations: values['deny-private-destinations'],
    allowedOrigins: values['allow-origin'],
    seed,
  };
}

function describe(engine: Engine): string {
  const lines = [`Tokenbench is serving ${engine.url}`];
  if (engine.echoUrl) lines.push(`Echo destination at ${engine.echoUrl}`);
  lines.push(engine.config.dataDir ? `Vault: ${engine.config.dataDir}` : 'Vault: in memory (nothing is kept)');
  lines.push(engine.workbench ? `Workbench: ${engine.workbench.url}` : 'Workbench: not built; run `npm run build`, then start serve again');
  const report = engine.seedReport;
  if (report) {
    lines.push(`Seed: ${report.created.length} created, ${report.unchanged.length} unchanged, ${report.conflicts.length} conflicts`);
    for (const conflict of report.conflicts) lines.push(`  conflict, skipped: ${conflict}`);
  }
  const keys = engine.bootstrapKeys;
  if (keys) {
    lines.push(
      'First start: two applications were created. Their keys are shown this once:',
      `  management key (application:*):  ${keys.management.key}`,
      `  private key (token:*):           ${keys.private.key}`,
    );
  }
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  let options;
  try {
    options = parseServeArgs(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  let engine: Engine;
  try {
    // The browser workbench is served when its build (`npm run build`) is there: beside out/main when this is the
    // built CLI, under the repository's out/ when it runs from source.
    const uiDir = [resolve(__dirname, '..', 'renderer'), resolve(__dirname, '..', '..', 'out', 'renderer')].find((dir) =>
      existsSync(join(dir, 'index.html')),
    );
    engine = await startEngine({ ...options, workbench: uiDir ? { uiDir } : undefined });
  } catch (error) {
    process.stderr.write(`tokenbench: could not start: ${(error as Error).message}\n`);
    return 1;
  }
  process.stdout.write(describe(engine) + '\n');
  await new Promise<void>((done) => {
    const stop = (signal: string) => {
      process.stdout.write(`${signal}: stopping\n`);
      engine.stop().then(done, done);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  main(args[0] === 'serve' ? args.slice(1) : args).then((code) => process.exit(code));
}
