/**
 * The ceiling of HTTP on this machine: a bare node:http server (run as a child process) that reads the request body
 * and answers a fixed JSON per method. BASELINE_REPLIES = {"GET": {status, body}, "POST": {status, body}}.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FixedReply {
  status: number;
  body: string;
}

export type BaselineReplies = Partial<Record<'GET' | 'POST', FixedReply>>;

export const BASELINE_READY = /^Baseline is serving (http:\/\/\S+)$/m;

function serve(replies: BaselineReplies): void {
  const encoded = Object.fromEntries(
    Object.entries(replies).map(([method, r]) => [method, { status: r.status, body: Buffer.from(r.body) }]),
  );
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const reply = encoded[req.method ?? ''];
      if (!reply) return res.writeHead(405).end();
      res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': reply.body.length });
      res.end(reply.body);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`Baseline is serving http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)).closeAllConnections());
}

if (require.main === module) serve(JSON.parse(process.env.BASELINE_REPLIES ?? '{}') as BaselineReplies);
