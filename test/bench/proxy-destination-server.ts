/**
 * The proxy benchmark's destination, run as a child process: a bare node:http server that reads the whole request
 * body and answers {"len": <bytes received>}, so the load generator can tell a proxy that drops, cuts or fails to
 * detokenize a body from one that forwards it as it should.
 */
import { createServer } from 'node:http';
import { serveUntilTerminated } from './child-announce';

function serve(): void {
  const server = createServer((req, res) => {
    let len = 0;
    req.on('data', (chunk: Buffer) => (len += chunk.length));
    req.on('end', () => {
      const body = `{"len":${len}}`;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
    });
  });
  serveUntilTerminated(server);
}

if (require.main === module) serve();
