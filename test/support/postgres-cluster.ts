import { execFile, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port';

/** Said once per run where a PostgreSQL suite is selected and the machine has no PostgreSQL server binaries. */
export const NO_POSTGRES =
  'PostgreSQL suites skipped: no PostgreSQL server binaries (tried pg_config --bindir, /usr/lib/postgresql/*/bin, PATH). ' +
  'Install them to run these suites: apt-get install postgresql-15';

const hasServer = (dir: string) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'));

/** The folder holding initdb and pg_ctl, or null: pg_config's answer, else Debian's newest, else PATH. */
export function findPostgresBinaries(): string | null {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    // Debian's pg_config comes with libpq-dev too, naming a bindir that has no server in it.
    if (hasServer(dir)) return dir;
  } catch {
    // No pg_config: look further.
  }
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) if (hasServer(join(debian, version, 'bin'))) return join(debian, version, 'bin');
  return (process.env.PATH ?? '').split(':').find((dir) => dir !== '' && hasServer(dir)) ?? null;
}

export interface PostgresCluster {
  /** The superuser's URL to the `postgres` database, over loopback TCP. */
  url: string;
  folder: string;
  port: number;
  /** The postmaster's process id. */
  pid: number;
  /** Stops the server at once (`pg_ctl stop -m immediate`) and removes its folder. */
  stop(): Promise<void>;
}

const run = promisify(execFile);

/**
 * initdb and pg_ctl refuse to run as root: as root the cluster is the `postgres` user's, in a folder that user owns;
 * as anyone else it is that user's own.
 */
function clusterOwner(): { prefix: string[]; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { prefix: ['runuser', '-u', 'postgres', '--'], uid: id('-u'), gid: id('-g') };
}

/**
 * Starts a throwaway cluster in a fresh temp folder: loopback only on a free port, its socket in the folder, durability
 * off (a test's data is worth nothing after the run). A reaper process in a session of its own holds the read end of
 * a pipe from this process: when this process ends, however it ends (SIGKILL included), the pipe closes and the reaper
 * stops the server and removes the folder, so a cluster never outlives the process that started it.
 */
export async function startPostgresCluster(bindir: string): Promise<PostgresCluster> {
  const owner = clusterOwner();
  const folder = mkdtempSync(join(tmpdir(), 'tokenbench-pg-'));
  if (owner) chownSync(folder, owner.uid, owner.gid);
  const data = join(folder, 'data');
  const asOwner = (program: string, args: string[]) => {
    const command = [...(owner?.prefix ?? []), join(bindir, program), ...args];
    return run(command[0], command.slice(1), { cwd: folder });
  };

  const stopCommand = [...(owner?.prefix ?? []), join(bindir, 'pg_ctl'), 'stop', '-D', data, '-m', 'immediate', '-w'];
  const reaper = spawn('sh', ['-c', 'cat >/dev/null; "$@" >/dev/null 2>&1; rm -rf -- "$FOLDER"', 'reaper', ...stopCommand], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
    env: { ...process.env, FOLDER: folder },
  });
  const reaped = new Promise<void>((resolve) => reaper.once('exit', () => resolve()));
  reaper.unref();
  (reaper.stdin as unknown as { unref(): void }).unref();
  const stop = async () => {
    reaper.ref();
    reaper.stdin!.end();
    await reaped;
  };

  try {
    await asOwner('initdb', ['-D', data, '--no-sync', '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-instructions']);
    // A port free a moment ago may be taken by the time the server binds it: try another.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      appendFileSync(
        join(data, 'postgresql.conf'),
        [
          `listen_addresses = '127.0.0.1'`,
          `port = ${port}`,
          `unix_socket_directories = '${folder}'`,
          'fsync = off',
          'synchronous_commit = off',
          'full_page_writes = off',
          '',
        ].join('\n'),
      );
      try {
        await asOwner('pg_ctl', ['start', '-w', '-D', data, '-l', join(folder, 'server.log')]);
      } catch (error) {
        if (attempt < 3 && /could not bind|already in use/i.test(readLog(folder))) continue;
        throw new Error(`PostgreSQL did not start:\n${readLog(folder)}`, { cause: error });
      }
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, folder, port, pid, stop };
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

const readLog = (folder: string) => {
  try {
    return readFileSync(join(folder, 'server.log'), 'utf8');
  } catch {
    return '';
  }
};

let databases = 0;

/**
 * Creates a fresh, empty database on the cluster at `adminUrl` and answers its URL. The name gets this process's id and
 * a count, so two suites (or two files naming the same) never share one.
 */
export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  if (!/^[a-z][a-z0-9_]{0,30}$/.test(name)) throw new Error(`database name '${name}': lower-case letters, digits and _, up to 31`);
  const unique = `${name}_${process.pid}_${++databases}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${unique}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${unique}`;
  return url.href;
}

/** Drops a database `createDatabase` made, closing whatever sessions are still connected to it. */
export async function dropDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = target.pathname.slice(1);
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`database name '${name}' was not made by createDatabase`);
  target.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: target.href });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
