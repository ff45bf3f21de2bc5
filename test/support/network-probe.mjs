// Loaded with `node --import` into a process whose network use a test checks: prints one "network attempt" line on
// stderr for every HTTP(S) request and every TCP connection the process starts, whether or not it could connect.
import { subscribe } from 'node:diagnostics_channel';

subscribe('http.client.request.start', ({ request }) => {
  process.stderr.write(`network attempt: ${request.method} ${request.protocol}//${request.host}${request.path}\n`);
});
subscribe('net.client.socket', () => {
  process.stderr.write('network attempt: a TCP connection\n');
});
