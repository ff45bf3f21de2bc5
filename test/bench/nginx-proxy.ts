/**
 * nginx as a peer proxy for the proxy benchmark (Debian's package): one worker, a keep-alive upstream, a generated
 * config whose pid file, logs and temp dirs all live in a fresh temp dir, in the foreground (`daemon off`).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopProcess } from './child-process';

export const NGINX_BINARY = '/usr/sbin/nginx';
const START_TIMEOUT_MS = 10_000;

export interface NginxProxy {
  url: string;
  masterPid: number;
  /** The one worker: the process that does the proxying. */
  workerPid: number;
  stop(): Promise<void>;
}

export interface NginxConfigOptions {
  dir: string;
  listenPort: number;
  upstream: URL;
}

export function nginxConfig({ dir, listenPort, upstream }: NginxConfigOptions): string {
  return `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  client_max_body_size 1m;
  # Tokenbench holds a body of up to 1 MiB in memory; so does nginx here, rather than in a temp file.
  client_body_buffer_size 1m;
  keepalive_timeout 65s;
  keepalive_requests 1000000;
  upstream destination {
    server ${upstream.host};
    keepalive 64;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${listenPort};
    location / {
      proxy_pass http://destination;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
}

/** A port nothing listens on right now (nginx cannot be told to pick one and report it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Starts nginx in front of `upstream`; null when nginx is not installed. */
export async function startNginx(upstream: URL): Promise<NginxProxy | null> {
  if (!existsSync(NGINX_BINARY)) return null;
  const dir = mkdtempSync(join(tmpdir(), 'tokenbench-nginx-'));
  // Started as root, nginx runs its worker as nobody, which must be able to reach the temp dirs.
  chmodSync(dir, 0o755);
  const listenPort = await freePort();
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig({ dir, listenPort, upstream }));
  const master = spawn(NGINX_BINARY, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  master.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async () => {
    await stopProcess(master);
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = performance.now() + START_TIMEOUT_MS;
  while (master.exitCode === null && master.signalCode === null && performance.now() < deadline) {
    const [workerPid] = childPids(master.pid!);
    if (workerPid !== undefined && (await accepts(listenPort))) {
      return { url: `http://127.0.0.1:${listenPort}`, masterPid: master.pid!, workerPid, stop };
    }
    await pause(50);
  }
  const log = existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '';
  const exited = master.exitCode !== null || master.signalCode !== null;
  const why = exited ? 'exited' : `was not ready within ${START_TIMEOUT_MS / 1000} s`;
  await stop();
  throw new Error(`nginx ${why}\n${stderr}${log}`);
}
