/** Real loopback servers and raw sockets for the proxy tests. */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface TestServer {
  server: http.Server;
  port: number;
  url: string;
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

export async function startServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  let accepted = 0;
  server.on('connection', () => accepted++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A port nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Sends bytes exactly as written (no client library tidying headers) and returns the answer's head and body.
 * The answer must carry Content-Length; the socket is not half-closed, since Node would abort the request.
 */
export function rawExchange(port: number, request: string): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const head = received.subarray(0, headEnd).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
      if (received.length < headEnd + 4 + length) return;
      socket.destroy();
      resolve({ head, body: received.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8') });
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('connection closed before a complete answer')));
  });
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
