import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedFile } from '../../electron/engine';
import { startServe, type ServeProcess } from '../support/serve-process';
import { tempDir } from '../support/test-engine';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Client code as a developer writes it against the hosted service, with only the base URL changed to the default
 * `http://localhost:4780` and a key: global fetch, the BT-API-KEY header, nothing Tokenbench-specific.
 */
const BASE_URL = 'http://localhost:4780';
const KEY = 'key_test_plain_client_0123456789abcdef';
let serve: ServeProcess;

beforeAll(async () => {
  const dir = tempDir();
  const seed = {
    applications: [
      {
        name: 'plain client',
        type: 'private',
        key: KEY,
        rules: [
          { description: 'pci masked', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'] },
          { description: 'rest revealed', priority: 2, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'] },
        ],
      },
    ],
  };
  seedFile.parse(seed);
  writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
  // The default port on purpose: this is the URL the README tells developers to use.
  serve = await startServe(['--in-memory', '--echo-port', '0', '--seed', join(dir, 'seed.json')]);
  expect(serve.url).toBe('http://127.0.0.1:4780');
});
afterAll(async () => {
  serve.child.kill('SIGTERM');
  await serve.exited;
});

async function bt(method: string, path: string, body?: unknown, contentType = 'application/json') {
  const res = await fetch(`${BASE_URL}${path}`, {
    method,
    headers: { 'BT-API-KEY': KEY, ...(body === undefined ? {} : { 'Content-Type': contentType }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

it('creates, reads masked and revealed, lists, searches, merge-patches and deletes over http://localhost:4780', async () => {
  const card = await bt('POST', '/tokens', {
    type: 'card',
    data: { number: '5555555555554444', expiration_month: 8, expiration_year: 2029 },
    metadata: { order: 'o-42' },
  });
  expect(card.status).toBe(201);
  const masked = await bt('GET', `/tokens/${card.body.id}`);
  expect(masked.body.data.number).toBe('XXXXXXXXXXXX4444');

  const note = await bt('POST', '/tokens', { type: 'token', data: { email: 'jane@example.com' }, metadata: { order: 'o-42' }, search_indexes: ['{{ data.email }}'] });
  const revealed = await bt('GET', `/tokens/${note.body.id}`);
  expect(revealed.body.data).toEqual({ email: 'jane@example.com' });

  const listed = await bt('GET', '/tokens?metadata.order=o-42');
  expect(listed.body.pagination.total_items).toBe(2);
  const searched = await bt('POST', '/v2/tokens/search', { query: 'data:jane@example.com' });
  expect(searched.body.data.map((t: { id: string }) => t.id)).toEqual([note.body.id]);

  const patched = await bt('PATCH', `/tokens/${note.body.id}`, { data: { name: 'Jane' } }, 'application/merge-patch+json');
  expect(patched.body.data).toEqual({ email: 'jane@example.com', name: 'Jane' });

  expect((await bt('DELETE', `/tokens/${card.body.id}`)).status).toBe(204);
  expect((await bt('GET', `/tokens/${card.body.id}`)).status).toBe(404);
});
