/**
 * The Node peer proxy, run as a child process: fastify + @fastify/http-proxy with its defaults (undici pool,
 * keep-alive) forwarding every path to PROXY_UPSTREAM. It does not detokenize: `{{ … }}` are just bytes to it.
 */
import fastify from 'fastify';
import httpProxy from '@fastify/http-proxy';
import { serveUntilTerminated } from './child-announce';

async function serve(upstream: string): Promise<void> {
  const app = fastify({ logger: false });
  await app.register(httpProxy, { upstream });
  await app.ready();
  serveUntilTerminated(app.server);
}

if (require.main === module) {
  const upstream = process.env.PROXY_UPSTREAM;
  if (!upstream) throw new Error('PROXY_UPSTREAM is not set');
  void serve(upstream);
}
