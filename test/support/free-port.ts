import { createServer, type AddressInfo } from 'node:net';

/** A loopback port that was free a moment ago, for a CLI flag where `0` means something other than "any". */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}
