import { once } from 'node:events';
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort } from '../proxy/support/loopback';
import { callApi, tempDir } from '../support/test-engine';
import { BIN_SERVE_COMMAND, runServe, startServe, type ServeProcess, type ServeOptions } from '../support/serve-process';

const running: ServeProcess[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
});

const ROOT = join(__dirname, '..', '..');

/** The output once it holds `text`, which may come on stderr after the lines startServe waits for. */
async function outputContaining(p: ServeProcess, text: string): Promise<string> {
  while (!p.output().includes(text)) await once(p.child.stderr!, 'data');
  return p.output();
}

async function serve(args: string[], command?: ServeOptions['command']) {
  const p = await startServe(args, { command });
  running.push(p);
  return p;
}

const SEED = {
  applications: [
    {
      name: 'ci-backend',
      type: 'private',
      key: 'key_test_ci_backend_0123456789abcdef',
      rules: [{ description: 'all', priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:use'] }],
    },
    {
      name: 'ci-admin',
      type: 'management',
      key: 'key_test_ci_admin_0123456789abcdef',
      permissions: ['application:create', 'application:read', 'application:update', 'application:delete'],
    },
  ],
  tokens: [
    {
      id: '8f1c9d2e-4b7a-4c3e-9f10-2a3b4c5d6e7f',
      type: 'card',
      data: { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 },
      metadata: { customer: 'c-1' },
    },
  ],
};

describe('tokenbench serve', () => {
  it('prints its URL and the first-start keys once, serves the API, and stops cleanly on SIGTERM', async () => {
    const dir = tempDir();
    // The bin as a user runs it (from source), where the other tests may run the build.
    const p = await serve(['--data-dir', dir, '--port', '0', '--echo-port', '0'], BIN_SERVE_COMMAND);
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(p.managementKey).toMatch(/^key_local_/);
    expect(p.privateKey).toMatch(/^key_local_/);
    expect(p.output()).not.toContain('Warning');
    const created = await callApi(p.url, 'POST', '/tokens', { key: p.privateKey, body: { type: 'token', data: 'cli' } });
    expect(created.status).toBe(201);
    // A canary card number, accepted once and refused once, must not reach the service's output.
    const canary = '4000056655665556';
    const card = { type: 'card', data: { number: canary, expiration_month: 1, expiration_year: 2032 } };
    expect((await callApi(p.url, 'POST', '/tokens', { key: p.privateKey, body: card })).status).toBe(201);
    expect((await callApi(p.url, 'POST', '/tokens', { key: p.privateKey, body: { ...card, data: { number: canary + '1' } } })).status).toBe(400);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output()).toContain('SIGTERM: stopping');
    expect(p.output()).not.toContain(canary);
    running.pop();

    const again = await serve(['--data-dir', dir, '--port', '0', '--echo-port', '0']);
    expect(again.output()).not.toContain('First start');
    expect((await callApi(again.url, 'GET', `/tokens/${created.body.id}`, { key: p.privateKey })).status).toBe(200);
  });

  it('warns what --host 0.0.0.0 opens to other machines, and prints loopback URLs that its Host check lets through', async () => {
    // --echo-port 0 turns the echo destination off: it gets a port that was free a moment ago.
    const p = await serve(['--in-memory', '--host', '0.0.0.0', '--port', '0', '--echo-port', String(await closedPort())]);
    const out = await outputContaining(p, 'Warning: --host 0.0.0.0 opens Tokenbench to other machines, not only this one.');
    expect(out).toMatch(/- the API on port \d+: with a key, create, read and reveal tokens/);
    expect(out).toMatch(/- the echo destination on port \d+, without a key/);
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await callApi(p.url, 'GET', '/tokens', { key: p.privateKey })).status).toBe(200);
    const echoUrl = /Echo destination at (\S+)/.exec(out)![1];
    expect((await fetch(`${echoUrl}/anything`)).status).toBe(200);
    // The workbench is there only when the renderer is built (`npm run build`, or Playwright's setup).
    if (existsSync(join(ROOT, 'out', 'renderer', 'index.html'))) {
      const workbench = await fetch(/Workbench: (\S+)/.exec(out)![1]);
      expect(workbench.status).toBe(200);
      expect(workbench.headers.get('content-type')).toContain('text/html');
    } else {
      expect(out).toContain('Workbench: not built');
    }
  });

  it('applies a seed so that known keys and tokens work, and a second run changes nothing', async () => {
    const dir = tempDir();
    const seedFile = join(dir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(SEED));
    const first = await serve(['--data-dir', join(dir, 'vault'), '--port', '0', '--echo-port', '0', '--seed', seedFile]);
    expect(first.output()).toContain('Seed: 3 created, 0 unchanged, 0 conflicts');
    expect(first.output()).not.toContain('First start');
    const read = await callApi(first.url, 'GET', `/tokens/${SEED.tokens[0].id}`, { key: SEED.applications[0].key });
    expect(read.body).toMatchObject({ data: SEED.tokens[0].data, metadata: { customer: 'c-1' } });
    const apps = await callApi(first.url, 'GET', '/applications', { key: SEED.applications[1].key });
    expect(apps.body.pagination.total_items).toBe(2);
    first.child.kill('SIGTERM');
    await first.exited;
    running.pop();

    const second = await serve(['--data-dir', join(dir, 'vault'), '--port', '0', '--echo-port', '0', '--seed', seedFile]);
    expect(second.output()).toContain('Seed: 0 created, 3 unchanged, 0 conflicts');
    const appsAgain = await callApi(second.url, 'GET', '/applications', { key: SEED.applications[1].key });
    expect(appsAgain.body.pagination.total_items).toBe(2);
    second.child.kill('SIGTERM');
    await second.exited;
    running.pop();

    const changed = structuredClone(SEED);
    changed.tokens[0].data.expiration_year = 2031;
    changed.applications[0].key = 'key_test_some_other_key_0123456789';
    writeFileSync(seedFile, JSON.stringify(changed));
    const third = await serve(['--data-dir', join(dir, 'vault'), '--port', '0', '--echo-port', '0', '--seed', seedFile]);
    expect(third.output()).toContain('Seed: 0 created, 1 unchanged, 2 conflicts');
    expect(third.output()).toContain(`conflict, skipped: token ${SEED.tokens[0].id}`);
    const unchanged = await callApi(third.url, 'GET', `/tokens/${SEED.tokens[0].id}`, { key: SEED.applications[0].key });
    expect(unchanged.body.data.expiration_year).toBe(2030);
    third.child.kill('SIGTERM');
    await third.exited;
    running.pop();

    // The same token asked for in another container is a conflict too, not "unchanged".
    const moved = structuredClone(SEED) as typeof SEED & { tokens: { containers?: string[] }[] };
    moved.tokens[0].containers = ['/other/'];
    writeFileSync(seedFile, JSON.stringify(moved));
    const fourth = await serve(['--data-dir', join(dir, 'vault'), '--port', '0', '--echo-port', '0', '--seed', seedFile]);
    expect(fourth.output()).toContain('Seed: 0 created, 2 unchanged, 1 conflicts');
    expect(fourth.output()).toContain(`conflict, skipped: token ${SEED.tokens[0].id}: exists with other containers`);
    fourth.child.kill('SIGTERM');
    await fourth.exited;
    running.pop();

    // So is one with other search indexes or another expiry: every field a create sets counts.
    const indexed = structuredClone(SEED) as typeof SEED & { tokens: { search_indexes?: string[]; expires_at?: string }[] };
    indexed.tokens[0].search_indexes = ['{{ data.number | last4 }}'];
    indexed.tokens[0].expires_at = '2099-01-01T00:00:00.000Z';
    writeFileSync(seedFile, JSON.stringify(indexed));
    const fifth = await serve(['--data-dir', join(dir, 'vault'), '--port', '0', '--echo-port', '0', '--seed', seedFile]);
    expect(fifth.output()).toContain(`conflict, skipped: token ${SEED.tokens[0].id}: exists with other search_indexes, expires_at`);
    // Five starts of a process in a row: room for a loaded machine, where each start takes seconds.
  }, 90_000);

  it('refuses a seed token whose data is invalid, naming the token and the field', async () => {
    const dir = tempDir();
    const seedFile = join(dir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify({ tokens: [{ id: 'seed-bad-card', type: 'card_number', data: '4242424242424241' }] }));
    const { code, output } = await runServe(['--in-memory', '--seed', seedFile]);
    expect(code).not.toBe(0);
    expect(output).toContain('token seed-bad-card: data: Card number fails the Luhn check');
    expect(output).not.toContain('4242424242424241');
  });

  it('refuses, before it serves, a seed whose tokens spend more than the expression budget they share, naming the token', async () => {
    const dir = tempDir();
    const seedFile = join(dir, 'seed.json');
    // Each fingerprint pads to 600,000 characters: the fourth of a group of 100 goes over the 2,097,152 they may spend.
    const tokens = Array.from({ length: 1_500 }, (_, i) => ({ id: `seed-${i}`, type: 'token', data: 'x', fingerprint_expression: "{{ data | pad_left: 600000, 'x' }}" }));
    writeFileSync(seedFile, JSON.stringify({ tokens }));
    const { code, output } = await runServe(['--in-memory', '--port', '0', '--echo-port', '0', '--seed', seedFile]);
    expect(code).toBe(1);
    expect(output).toMatch(/^tokenbench: could not start: token seed-3: Expression \{\{ data \| pad_left: 600000, 'x' \}\} is over .*; each 100 tokens of a seed share one budget/);
    expect(output).not.toContain('serving');
  });

  it('refuses an invalid seed file, naming the field', async () => {
    const dir = tempDir();
    const seedFile = join(dir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify({ applications: [{ name: 'x', type: 'private', key: 'short' }] }));
    const { code, output } = await runServe(['--in-memory', '--seed', seedFile]);
    expect(code).toBe(2);
    expect(output).toContain('applications.0.key');
  });

  it.each([
    ['--port', (port: number) => ['--port', String(port), '--echo-port', '0']],
    ['--echo-port', (port: number) => ['--port', '0', '--echo-port', String(port)]],
  ])('says in one line which port is taken and that %s picks another, with exit code 1', async (flag, args) => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, output } = await runServe(['--in-memory', ...args(port)]);
      expect(code).toBe(1);
      expect(output).toBe(`tokenbench: could not start: Port ${port} is in use (another Tokenbench?): pick another with ${flag}\n`);
    } finally {
      blocker.close();
    }
  });

  /** Folders serve cannot keep a vault in, each made fresh, with the OS's reason (errno code) for refusing it. */
  const unusableDataDirs: [where: string, make: () => [dir: string, reason: string]][] = [
    ['under a dangling symbolic link', () => {
      const link = join(tempDir(), 'dangling');
      symlinkSync(join(tempDir(), 'gone', 'away'), link);
      return [join(link, 'vault'), 'ENOENT'];
    }],
    ['inside a regular file', () => {
      const file = join(tempDir(), 'a-file');
      writeFileSync(file, '');
      return [join(file, 'vault'), 'ENOTDIR'];
    }],
  ];
  if (existsSync('/proc/self')) unusableDataDirs.push(['under /proc', () => ['/proc/nope', 'ENOENT']]);

  it.each(unusableDataDirs)('stops at once with exit code 1 on a data folder %s, naming it and the reason', async (_where, make) => {
    const [dir, reason] = make();
    const { code, output } = await runServe(['--data-dir', dir, '--port', '0', '--echo-port', '0']);
    expect(code).toBe(1);
    expect(output.startsWith(`tokenbench: could not start: Cannot use ${dir} as the data folder: ${reason}: `)).toBe(true);
    expect(output.split('\n')).toHaveLength(2);
  });
});
