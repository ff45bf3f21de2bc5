/**
 * How a benchmark child server (run by startChildServer) says where it listens, and how the parent reads it: one
 * stdout line. The children exit on SIGTERM, dropping their keep-alive sockets, since they keep no state.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const SERVING = /^Bench server is serving (http:\/\/\S+)$/m;

/** The child's URL once its line is in `stdout`. */
export function servingUrl(stdout: string): { url: string } | undefined {
  const url = SERVING.exec(stdout)?.[1];
  return url ? { url } : undefined;
}

/** Listens on a free loopback port, prints the line `servingUrl` reads, and exits on SIGTERM. */
export function serveUntilTerminated(server: Server): void {
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`Bench server is serving http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
