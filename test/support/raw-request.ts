import { connect } from 'node:net';

/**
 * Sends raw request head bytes (a target or header no HTTP client sends as it is) and resolves with the response's
 * bytes once its body is in, without ever sending a body the head promises.
 */
export function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString();
      if (data.includes('\r\n\r\n') && /content-length: (\d+)/i.test(data)) {
        const length = Number(/content-length: (\d+)/i.exec(data)![1]);
        if (data.length >= data.indexOf('\r\n\r\n') + 4 + length) {
          socket.destroy();
          resolve(data);
        }
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(data));
    socket.write(head);
  });
}
