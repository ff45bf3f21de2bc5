import { get as httpGet, type IncomingMessage } from 'node:http';

/** A GET with the path exactly as given (undici and fetch would normalise `..`). */
export function rawGet(baseUrl: string, path: string): Promise<IncomingMessage> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => httpGet({ host: '127.0.0.1', port, path }, resolve).on('error', reject));
}

/** Reads an engine's live Server-Sent Events (`/_workbench/live?QUERY`), one parsed `data:` message at a time. */
export async function openLive<Event = unknown>(baseUrl: string, query: string) {
  const res = await rawGet(baseUrl, `/_workbench/live?${query}`);
  res.setEncoding('utf8');
  const chunks: AsyncIterator<string> = res[Symbol.asyncIterator]();
  let buffered = '';
  return {
    status: res.statusCode,
    contentType: res.headers['content-type'],
    async next(): Promise<Event> {
      for (;;) {
        const end = buffered.indexOf('\n\n');
        if (end !== -1) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = block.split('\n').find((line) => line.startsWith('data: '));
          if (data) return JSON.parse(data.slice('data: '.length));
          continue;
        }
        const { value, done } = await chunks.next();
        if (done) throw new Error('the live stream ended');
        buffered += value;
      }
    },
    close: () => res.destroy(),
  };
}
