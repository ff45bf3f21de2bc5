import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../electron/engine';
import { main } from '../../electron/cli/serve';
import { parseServeArgs } from '../../electron/cli/serve-options';
import { vaultLine } from '../../electron/cli/serve-report';
import { runServe } from '../support/serve-process';

/**
 * The CLI's main() in this process, what it writes captured: a usage error is decided before anything starts, so a
 * process per case (each compiling the CLI) would test nothing more. One case below runs as a process.
 */
async function serveHere(args: string[]): Promise<{ code: number; output: string }> {
  let output = '';
  const capture = (chunk: string | Uint8Array) => {
    output += String(chunk);
    return true;
  };
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  try {
    return { code: await main(args), output };
  } finally {
    stderr.mockRestore();
    stdout.mockRestore();
  }
}

describe('tokenbench serve, called the wrong way', () => {
  it.each([
    [['--port', '70000'], '--port must be a whole number from 0 to 65535, got 70000'],
    [['--port', '-1'], '--port must be a whole number from 0 to 65535, got -1'],
    [['--port=-1'], '--port must be a whole number from 0 to 65535, got -1'],
    [['--port', 'abc'], '--port must be a whole number from 0 to 65535, got abc'],
    [['--echo-port', '65536'], '--echo-port must be a whole number from 0 to 65535, got 65536'],
    [['--max-body', '0'], '--max-body must be a whole number of at least 1, got 0'],
    [['--history-limit', '0'], '--history-limit must be a whole number from 1 to 1000000, got 0'],
    [['--history-max-age', 'week'], '--history-max-age must be a whole number from 0 to 36500, got week'],
    [['--history-answer-bytes', '100'], '--history-answer-bytes must be a whole number from 1024 to 1048576, got 100'],
    [['--token-intent-ttl', '172801'], '--token-intent-ttl must be a whole number from 1 to 172800, got 172801'],
    [['--log-retention', '0'], '--log-retention must be a whole number from 1 to 720, got 0'],
    [['--port', '4780', '--echo-port', '4780'], '--port and --echo-port are both 4780: pick two ports'],
    [['--port', '4781'], '--port and --echo-port are both 4781 (--echo-port by default): pick two ports'],
    [['--in-memory', '--data-dir', '/tmp/x'], '--in-memory and --data-dir exclude each other'],
    [['--header-prefix', 'x-'], 'Header prefix must be letters and digits, got "x-"'],
    [['--seed', '/nonexistent/seed.json'], "--seed /nonexistent/seed.json: ENOENT: no such file or directory, open '/nonexistent/seed.json'"],
    [['--proxies', '/nonexistent/proxies'], '--proxies /nonexistent/proxies: no such folder'],
    [['--bogus'], "Unknown option '--bogus'"],
  ])('%j: exit code 2, one line saying what is wrong, and a pointer to --help', async (args, message) => {
    const { code, output } = await serveHere(args);
    expect(code).toBe(2);
    expect(output).toBe(`tokenbench serve: ${message}\nSee --help for every option.\n`);
  });

  it('as a process too: exit code 2 and that one line on stderr', async () => {
    const { code, output } = await runServe(['--port', '70000']);
    expect(code).toBe(2);
    expect(output).toBe('tokenbench serve: --port must be a whole number from 0 to 65535, got 70000\nSee --help for every option.\n');
  });

  it('--help lists every flag, with the defaults the engine really uses, and the exit codes', async () => {
    const { code, output } = await serveHere(['--help']);
    expect(code).toBe(0);
    const defaults = resolveConfig();
    const expected: [flag: string, shows: string][] = [
      ['--host HOST', `default ${defaults.host}`],
      ['--port N', `default ${defaults.port}`],
      ['--data-dir DIR', 'default ./.tokenbench'],
      ['--in-memory', 'throwaway'],
      ['--database URL', 'TOKENBENCH_DATABASE_URL'],
      ['--collections DIR', 'default: collections/ in the data folder'],
      ['--proxies DIR', 'reloaded on each change'],
      ['--seed FILE', 'JSON'],
      ['--header-prefix P', `default ${defaults.headerPrefix}`],
      ['--echo-port N', `default ${defaults.echoPort}`],
      ['--transaction-ttl SECONDS', `default ${defaults.transactionTtlSeconds}`],
      ['--proxy-timeout MS', `default ${defaults.proxyTimeoutMs}`],
      ['--max-body BYTES', `default ${defaults.maxBodyBytes}`],
      ['--max-expressions N', `default ${defaults.maxExpressions}`],
      ['--deny-private-destinations', 'default: allowed on loopback, refused beyond'],
      ['--allow-private-destinations', 'refused by default'],
      ['--history-limit N', `default ${defaults.historyLimit}`],
      ['--history-max-age DAYS', `default ${defaults.historyMaxAgeDays}`],
      ['--history-answers', 'default: not kept'],
      ['--history-answer-bytes BYTES', `default ${defaults.historyAnswerBytes}`],
      ['--allow-origin ORIGIN', 'default: none'],
      ['--public-url URL', 'repeatable'],
      ['--allow-code', 'refused by default'],
      ['--code-dependencies DIR', 'default: none'],
      ['--token-intent-ttl SECONDS', `default ${defaults.tokenIntentTtlSeconds}`],
      ['--allow-tenant-delete', 'default: refused with 422'],
      ['--log-retention HOURS', `default ${defaults.logRetentionHours}`],
      ['--master-key-file FILE', 'default: its master.key'],
      ['--identity-header NAME', 'default: none'],
      ['--trusted-proxy ADDR', 'default: none'],
      ['-h, --help', 'this text'],
    ];
    const flagLines = output.split('\n').filter((line) => /^\s+-/.test(line));
    expect(flagLines).toHaveLength(expected.length);
    expected.forEach(([flag, shows], i) => {
      expect(flagLines[i].trim().startsWith(flag)).toBe(true);
      expect(flagLines[i]).toContain(shows);
    });
    expect(output).toMatch(/Exit codes: 0 once stopped by Ctrl-C or SIGTERM[\s\S]*1 when it cannot start[\s\S]*2 for options/);
  });
});

describe('tokenbench serve --allow-tenant-delete', () => {
  it('allows DELETE /tenants/self for this run (an engine setting, off unless given)', () => {
    expect(parseServeArgs(['--allow-tenant-delete'])).toMatchObject({ allowTenantDelete: true });
    expect(parseServeArgs([])).toMatchObject({ allowTenantDelete: undefined });
  });
});

describe('tokenbench serve --database', () => {
  const URL_WITH_PASSWORD = 'postgres://vault:hunter2@db.example:5433/tokens';
  const masterKey = randomBytes(32).toString('base64');
  afterEach(() => vi.unstubAllEnvs());

  it('takes a postgres:// or postgresql:// URL from the flag or TOKENBENCH_DATABASE_URL, with the master key, and no data folder', () => {
    const env = { TOKENBENCH_MASTER_KEY: masterKey };
    expect(parseServeArgs(['--database', URL_WITH_PASSWORD], env)).toMatchObject({ databaseUrl: URL_WITH_PASSWORD, dataDir: null });
    const viaEnv = parseServeArgs([], { ...env, TOKENBENCH_DATABASE_URL: 'postgresql://vault@db.example/tokens' });
    expect(viaEnv).toMatchObject({ databaseUrl: 'postgresql://vault@db.example/tokens', dataDir: null });
    expect(parseServeArgs([], env)).toMatchObject({ databaseUrl: undefined, dataDir: expect.stringMatching(/\.tokenbench$/) });
  });

  it.each([
    [['--database', URL_WITH_PASSWORD], { TOKENBENCH_DATABASE_URL: URL_WITH_PASSWORD }, 'TOKENBENCH_DATABASE_URL and --database exclude each other: give the database once'],
    [['--database', URL_WITH_PASSWORD, '--data-dir', '/tmp/x'], {}, '--database and --data-dir exclude each other: the vault and its history are kept in the database (saved requests go to --collections DIR)'],
    [['--in-memory'], { TOKENBENCH_DATABASE_URL: URL_WITH_PASSWORD }, 'TOKENBENCH_DATABASE_URL and --in-memory exclude each other: the database keeps the vault'],
    [['--database', 'mysql://vault:hunter2@db.example/tokens'], {}, 'The database URL starts with mysql:, not postgres: give postgres://user:password@host:port/database'],
    [['--database', 'vault:hunter2@db.example'], {}, 'The database URL starts with vault:, not postgres: give postgres://user:password@host:port/database'],
    [['--database', 'hunter2'], {}, 'The database URL is not a URL: give postgres://user:password@host:port/database'],
    [['--database', `${URL_WITH_PASSWORD}?max=lots`], {}, "The database URL's max=lots is not a pool size: give a whole number from 1 to 9999"],
  ])('%j (env %j): exit code 2 and what is wrong, the password never repeated', async (args, env, message) => {
    vi.stubEnv('TOKENBENCH_MASTER_KEY', masterKey);
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const { code, output } = await serveHere(args);
    expect(code).toBe(2);
    expect(output).toBe(`tokenbench serve: ${message}\nSee --help for every option.\n`);
    expect(output).not.toContain('hunter2');
  });

  it('needs the master key from the environment or a file: no data folder keeps one', async () => {
    vi.stubEnv('TOKENBENCH_MASTER_KEY', undefined);
    const { code, output } = await serveHere(['--database', URL_WITH_PASSWORD]);
    expect(code).toBe(2);
    expect(output).toContain('--database needs the vault\'s master key from TOKENBENCH_MASTER_KEY or --master-key-file, the same on every replica');
    expect(output).not.toContain('hunter2');
  });

  it('names the database in the start banner by host, port, name and user, never by its password', () => {
    expect(vaultLine({ databaseUrl: `${URL_WITH_PASSWORD}?password=hunter2&sslmode=require`, dataDir: null })).toBe('Vault: PostgreSQL database db.example:5433/tokens as vault');
    expect(vaultLine({ databaseUrl: 'postgresql:///tokens?host=/run/postgresql', dataDir: null })).toBe('Vault: PostgreSQL database /run/postgresql:5432/tokens');
    expect(vaultLine({ databaseUrl: null, dataDir: '/srv/vault' })).toBe('Vault: /srv/vault');
  });

  it('as a process: a database it cannot start on is exit code 1, and the password is in none of its output', async () => {
    const { code, output } = await runServe(['--database', 'postgres://vault:hunter2@127.0.0.1:1/vault', '--port', '0', '--echo-port', '0'], { env: { TOKENBENCH_MASTER_KEY: masterKey } });
    expect(code).toBe(1);
    expect(output).toContain('could not start: Cannot reach the database at 127.0.0.1:1/vault as vault');
    expect(output).not.toContain('hunter2');
  });
});
