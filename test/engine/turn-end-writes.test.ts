import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';

// Replies leave at the end of the event-loop turn, together (electron/engine/server/turn-end-writes.ts). These tests
// pin what that must never change: order on one connection, each reply to its own client, clients that leave early.

let t: TestEngine;
const ids: string[] = [];
const secret = (i: number) => `batched-secret-${i}`;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true, echoPort: 0 });
  for (let i = 0; i < 30; i++) {
    const res = await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'token', data: secret(i) } });
    ids.push(res.body.id);
  }
});
afterAll(() => t.stop());

interface RawResponse {
  status: number;
  body: string;
}

/** Writes `requests` on one socket in a single send (HTTP/1.1 pipelining) and parses `requests.length` replies. */
function pipelined(requests: string[]): Promise<RawResponse[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(t.engine.port, '127.0.0.1');
    let data = Buffer.alloc(0);
    const replies: RawResponse[] = [];
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      for (;;) {
        const headEnd = data.indexOf('\r\n\r\n');
        if (headEnd === -1) break;
        const head = data.subarray(0, headEnd).toString();
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
        if (data.length < headEnd + 4 + length) break;
        replies.push({ status: Number(head.split(' ')[1]), body: data.subarray(headEnd + 4, headEnd + 4 + length).toString() });
        data = data.subarray(headEnd + 4 + length);
      }
      if (replies.length === requests.length) {
        socket.destroy();
        resolve(replies);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`connection closed after ${replies.length} of ${requests.length} replies`)));
    socket.write(requests.join(''));
  });
}

const host = () => `Host: 127.0.0.1:${t.engine.port}\r\nBT-API-KEY: ${t.privateKey}`;
const get = (path: string) => `GET ${path} HTTP/1.1\r\n${host()}\r\n\r\n`;
const post = (path: string, body: string, extra = '') =>
  `POST ${path} HTTP/1.1\r\n${host()}\r\n${extra}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('replies sent at the end of the turn', () => {
  it('answers pipelined API and proxy requests on one connection in the order they were sent', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const proxied = JSON.stringify({ value: `{{ ${ids[1]} }}` });
    const replies = await pipelined([
      get(`/tokens/${ids[0]}`),
      get(`/tokens/${missing}`),
      post('/proxy', proxied, `BT-PROXY-URL: ${t.engine.echoUrl}\r\n`),
      post('/tokens', JSON.stringify({ type: 'token', data: 'pipelined' })),
      get(`/tokens/${ids[2]}`),
    ]);

    expect(replies.map((r) => r.status)).toEqual([200, 404, 200, 201, 200]);
    expect(JSON.parse(replies[0].body).id).toBe(ids[0]);
    expect(JSON.parse(replies[1].body).detail).toContain(missing);
    expect(JSON.parse(JSON.parse(replies[2].body).body)).toEqual({ value: secret(1) });
    expect(JSON.parse(replies[3].body).type).toBe('token');
    expect(JSON.parse(replies[4].body).id).toBe(ids[2]);
  });

  it('gives each of many concurrent clients its own reply', async () => {
    const replies = await Promise.all(ids.map((id) => t.call('GET', `/tokens/${id}`, { key: t.privateKey })));
    expect(replies.map((r) => r.body.id)).toEqual(ids);
  });

  it('keeps answering the others when clients leave before their replies are written', async () => {
    const leavers = ids.slice(0, 10).map(
      (id) =>
        new Promise<void>((resolve) => {
          const socket = connect(t.engine.port, '127.0.0.1', () => {
            socket.write(get(`/tokens/${id}`));
            socket.destroy();
          });
          socket.on('close', () => resolve());
        }),
    );
    const stayers = ids.slice(10).map((id) => t.call('GET', `/tokens/${id}`, { key: t.privateKey }));
    await Promise.all(leavers);
    const replies = await Promise.all(stayers);
    expect(replies.map((r) => r.body.id)).toEqual(ids.slice(10));
    expect((await t.call('GET', `/tokens/${ids[0]}`, { key: t.privateKey })).status).toBe(200);
  });
});
