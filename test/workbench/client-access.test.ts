import { expect, it } from 'vitest';
import { encryptLikeElements } from '../support/client-encryption';
import { engineForEachTest, PAN, workbenchReply } from './support/workbench-engine';

/**
 * Client encryption keys and sessions as Settings sees them, over the workbench's HTTP methods: a key made there works
 * for a client's encrypted request, and is listed without either half; a session is listed with what it was granted,
 * never its key, and revoking it refuses its key at once.
 */
const current = engineForEachTest();

it('makes a client encryption key whose public half encrypts a token request, lists it without its halves, and deletes it', async () => {
  const t = current.bench;
  const made = await workbenchReply(t, 'createClientKey', {});
  expect(made.public_key_pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\w+/=]+\n-----END PUBLIC KEY-----$/);
  expect(made.key).toMatchObject({ created_by: null });

  const encrypted = await encryptLikeElements(PAN, made.public_key_pem, made.key.key_id);
  expect((await t.call('POST', '/tokens', { key: t.privateKey, body: { type: 'card_number', encrypted } })).status).toBe(201);

  // A client's key is listed with the application that made it; neither listing holds a key's halves.
  const byClient = (await t.call('POST', '/keys', { key: t.managementKey })).body;
  const listed = await workbenchReply(t, 'listClientKeys');
  expect(listed.map((key: { key_id: string }) => key.key_id)).toEqual([made.key.key_id, byClient.key_id]);
  expect(listed[1].created_by).toBe(t.engine.bootstrapKeys!.management.application_id);
  expect(JSON.stringify(listed)).not.toContain(made.public_key_pem.split('\n')[1]);
  expect(JSON.stringify(listed)).not.toContain('PRIVATE');

  await workbenchReply(t, 'deleteClientKey', { key_id: made.key.key_id });
  expect((await t.call('GET', `/keys/${made.key.key_id}`, { key: t.managementKey })).status).toBe(404);
  await expect(workbenchReply(t, 'deleteClientKey', { key_id: made.key.key_id })).rejects.toMatchObject({ status: 404 });
});

it('refuses a key expiry POST /keys refuses, naming the field', async () => {
  const t = current.bench;
  await expect(workbenchReply(t, 'createClientKey', { expires_at: '2001-01-01T00:00:00Z' })).rejects.toMatchObject({ status: 400, detail: expect.stringContaining('expires_at') });
  expect(await workbenchReply(t, 'listClientKeys')).toEqual([]);
});

it('revokes a live session so its key is refused at once', async () => {
  const t = current.bench;
  const front = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'Checkout page', type: 'public', permissions: ['token:create'] } });
  const session = (await t.call('POST', '/sessions', { key: front.body.key })).body;
  let [listed] = await workbenchReply(t, 'listSessions');
  expect(listed).toMatchObject({ application_id: front.body.id, application_name: 'Checkout page', expires_at: session.expires_at, authorized: false });

  expect((await t.call('POST', '/sessions/authorize', { key: t.privateKey, body: { nonce: session.nonce, permissions: ['token:read'] } })).status).toBe(204);
  [listed] = await workbenchReply(t, 'listSessions');
  expect(listed).toMatchObject({ authorized: true, authorized_by: current.backend, permissions: ['token:read'], rules: [] });
  const shown = JSON.stringify(listed);
  expect(shown).not.toContain(session.session_key);
  expect(shown).not.toContain(session.nonce);

  expect((await t.call('GET', '/tokens', { key: session.session_key })).status).toBe(200);
  await workbenchReply(t, 'revokeSession', { id: listed.id });
  expect((await t.call('GET', '/tokens', { key: session.session_key })).status).toBe(401);
  expect(await workbenchReply(t, 'listSessions')).toEqual([]);
  await expect(workbenchReply(t, 'revokeSession', { id: listed.id })).rejects.toMatchObject({ status: 404 });
});
