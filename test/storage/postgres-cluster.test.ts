import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, it, vi } from 'vitest';
import { findPostgresBinaries, startPostgresCluster } from '../support/postgres-cluster';
import { describePostgres, freshDatabase, postgresUrl } from '../support/postgres-suite';

/** Whether a process still runs; a zombie (ended, not yet reaped by its parent) does not. */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
}

const clients: pg.Client[] = [];
async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  clients.push(client);
  return client;
}
afterAll(() => Promise.all(clients.map((client) => client.end())));

describePostgres('the throwaway PostgreSQL cluster', () => {
  it("gives each suite a database of its own, where another suite's tables and rows are not", async () => {
    const [first, second] = await Promise.all([freshDatabase('isolation'), freshDatabase('isolation')]);
    expect(first).not.toBe(second);
    const a = await connect(first);
    const b = await connect(second);
    await a.query('CREATE TABLE notes (body TEXT)');
    await a.query(`INSERT INTO notes VALUES ('only in the first')`);
    expect((await b.query(`SELECT to_regclass('notes') AS found`)).rows).toEqual([{ found: null }]);
    await b.query('CREATE TABLE notes (body TEXT)');
    expect((await b.query('SELECT body FROM notes')).rows).toEqual([]);
    expect((await a.query('SELECT body FROM notes')).rows).toEqual([{ body: 'only in the first' }]);
  });

  it('listens on loopback TCP only', async () => {
    const port = Number(new URL(postgresUrl!).port);
    const listening = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(/\s+/))
        .filter(([, local, , state]) => state === '0A' && parseInt(local.split(':').at(-1)!, 16) === port)
        .map(([, local]) => local.split(':')[0]);
    // /proc/net/tcp writes 127.0.0.1 as 0100007F; any other address, or any IPv6 one, is reachable from elsewhere.
    expect(listening('/proc/net/tcp')).toEqual(['0100007F']);
    expect(listening('/proc/net/tcp6')).toEqual([]);
    const admin = await connect(postgresUrl!);
    expect((await admin.query('SHOW listen_addresses')).rows).toEqual([{ listen_addresses: '127.0.0.1' }]);
  });

  it('ends its server and removes its folder when stopped', async () => {
    const cluster = await startPostgresCluster(findPostgresBinaries()!);
    expect(existsSync(join(cluster.folder, 'data', 'PG_VERSION'))).toBe(true);
    expect(running(cluster.pid)).toBe(true);
    await cluster.stop();
    expect(running(cluster.pid)).toBe(false);
    expect(existsSync(cluster.folder)).toBe(false);
  });

  it('ends its server and removes its folder when the process that started it is killed (SIGKILL)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'postgres-cluster-child.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const started = await new Promise<{ folder: string; pid: number }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve(JSON.parse(out));
      });
      child.once('exit', (code) => reject(new Error(`the child ended (${code}) before its cluster started`)));
    });
    expect(running(started.pid)).toBe(true);
    child.kill('SIGKILL');
    await vi.waitFor(
      () => {
        expect(running(started.pid)).toBe(false);
        expect(existsSync(started.folder)).toBe(false);
      },
      { timeout: 20_000, interval: 100 },
    );
  });
});
