import { afterEach, describe, expect, it } from 'vitest';
import { historyListSchema } from '../../shared/workbench/history-contract';
import { LAUNCH_PATHS, PAGE_HEADER } from '../../shared/workbench/transport';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * Named workbench credentials over the browser workbench's HTTP routes: each person signs in with their secret, acts
 * under their own name in History and in the events, and a revoke ends their sessions at the next request.
 */
let t: TestEngine | undefined;
const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await t?.stop();
  t = undefined;
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

const start = async (options: Parameters<typeof startTestEngine>[0] = {}) => (t = await startTestEngine({ workbenchRoutes: true, ...options }));

async function signIn(engine: TestEngine, credential: string) {
  return engine.call('POST', LAUNCH_PATHS.signIn, { body: { credential } });
}

/** A credential made by the owner in Settings, signed in: the person's session. */
async function person(engine: TestEngine, name: string): Promise<{ id: string; secret: string; session: string }> {
  const made = await engine.workbench('createCredential', { name });
  expect(made.status, made.text).toBe(200);
  const signed = await signIn(engine, made.body.secret);
  expect(signed.status, signed.text).toBe(200);
  expect(signed.body.name).toBe(name);
  return { id: made.body.credential.id, secret: made.body.secret, session: signed.body.session };
}

async function historyOf(engine: TestEngine) {
  await engine.engine.history.flush();
  return historyListSchema.parse((await engine.workbench('listHistory', { limit: 100 })).body);
}

describe('named workbench credentials', () => {
  it('signs two people in, each acting under their own name in History and in the events', async () => {
    const engine = await start({ inMemory: true });
    const hooks = await startWebhookReceiver();
    receivers.push(hooks);
    const webhook = await engine.call('POST', '/webhooks', { key: engine.managementKey, body: { name: 'audit', url: hooks.url, events: ['application.created'] } });
    expect(webhook.status, webhook.text).toBe(201);
    const alice = await person(engine, 'alice');
    const bob = await person(engine, 'bob');
    expect(alice.session).not.toBe(bob.session);

    const asAlice = await engine.workbench('createApplication', { name: 'Made by Alice', type: 'private', permissions: [], rules: [] }, { session: alice.session, headers: { [PAGE_HEADER]: 'settings' } });
    expect(asAlice.status, asAlice.text).toBe(200);
    const asBob = await engine.workbench('createApplication', { name: 'Made by Bob', type: 'private', permissions: [], rules: [] }, { session: bob.session });
    expect(asBob.status, asBob.text).toBe(200);
    // A request the workbench sends through the service's front door carries its person too.
    const sent = await engine.workbench('sendRequest', { id: crypto.randomUUID(), application_id: asBob.body.id, method: 'GET', path: '/tokens', headers: [], body: null }, { session: bob.session });
    expect(sent.status, sent.text).toBe(200);

    const entries = await historyOf(engine);
    const made = (name: string) => entries.find((entry) => entry.change?.summary.includes(name));
    expect(made('Made by Alice')?.workbench_person).toEqual({ id: alice.id, name: 'alice' });
    expect(made('Made by Bob')?.workbench_person).toEqual({ id: bob.id, name: 'bob' });
    expect(entries.find((entry) => entry.path === '/tokens' && entry.method === 'GET')?.workbench_person).toEqual({ id: bob.id, name: 'bob' });
    // The owner's own changes name nobody, as before.
    expect(entries.find((entry) => entry.change?.summary.includes('“alice”'))?.workbench_person).toBeUndefined();

    // Deliveries run side by side, so they may arrive in either order, as the hosted service's may.
    const actors = (await hooks.waitFor(2)).map(({ body }) => body.event.data.actor as { name: string });
    actors.sort((a, b) => a.name.localeCompare(b.name));
    expect(actors).toEqual([
      { id: alice.id, name: 'alice', type: 'user' },
      { id: bob.id, name: 'bob', type: 'user' },
    ]);
    // Each person sees who they are; the owner is nobody in particular.
    expect((await engine.workbench('getIdentity', {}, { session: alice.session })).body).toEqual({ person: { id: alice.id, name: 'alice' } });
    expect((await engine.workbench('getIdentity')).body).toEqual({ person: null });
  });

  it('names the person in GET /logs for what the workbench does itself, and the application for API calls', async () => {
    const engine = await start({ inMemory: true });
    const alice = await person(engine, 'alice');
    const byAlice = await engine.workbench('createApplication', { name: 'Made by Alice', type: 'private', permissions: [], rules: [] }, { session: alice.session });
    expect(byAlice.status, byAlice.text).toBe(200);
    const byOwner = await engine.workbench('createApplication', { name: 'Made by the owner', type: 'private', permissions: [], rules: [] });
    expect(byOwner.status, byOwner.text).toBe(200);
    const byApi = await engine.call('POST', '/applications', { key: engine.managementKey, body: { name: 'Made through the API', type: 'private' } });
    expect(byApi.status, byApi.text).toBe(201);
    await engine.engine.history.flush();

    const logs = await engine.call('GET', '/logs?entity_type=application', { key: engine.managementKey });
    expect(logs.status, logs.text).toBe(200);
    const lineOf = (id: string) => logs.body.data.find((line: { entity_id: string; operation: string }) => line.entity_id === id && line.operation === 'create');
    expect(lineOf(byAlice.body.id)).toMatchObject({ actor_id: alice.id, actor_type: 'user', entity_type: 'application' });
    expect(lineOf(byAlice.body.id).message).toContain('Made by Alice');
    expect(lineOf(byOwner.body.id)).toMatchObject({ actor_id: 'workbench', actor_type: 'user' });
    expect(lineOf(byApi.body.id)).toMatchObject({ actor_type: 'application', message: 'Application created' });
  });

  it('lists credentials without their secrets, refuses a taken or malformed name, and never shows a person the owner session', async () => {
    const engine = await start({ inMemory: true });
    const alice = await person(engine, 'alice');
    const listed = await engine.workbench('listCredentials');
    expect(listed.body).toEqual([{ id: alice.id, name: 'alice', created_at: expect.any(String), last_used_at: expect.any(String) }]);
    expect(listed.text).not.toContain(alice.secret.slice(4));
    const taken = await engine.workbench('createCredential', { name: 'alice' });
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toContain('exists already');
    expect((await engine.workbench('createCredential', { name: ' alice' })).status).toBe(400);

    const settings = await engine.workbench('getSettings', {}, { session: alice.session });
    expect(settings.body.workbenchUrl).toBe(`${engine.url}/ui/`);
    expect(settings.text).not.toContain(engine.engine.browserWorkbench!.session);
    // A launch link trades for the owner's session: a person may not ask for one.
    expect((await engine.call('POST', LAUNCH_PATHS.link, { headers: { 'X-Tokenbench-Session': alice.session } })).status).toBe(401);
  });

  it('refuses a revoked credential at once: its sign-in and its open session', async () => {
    const engine = await start({ inMemory: true });
    const alice = await person(engine, 'alice');
    expect((await engine.workbench('getStatus', {}, { session: alice.session })).status).toBe(200);

    const revoked = await engine.workbench('revokeCredential', { name: 'alice' });
    expect(revoked.status, revoked.text).toBe(200);
    const refused = await engine.workbench('getStatus', {}, { session: alice.session });
    expect(refused.status).toBe(401);
    expect(refused.body.detail).toContain('sign in');
    const again = await signIn(engine, alice.secret);
    expect(again.status).toBe(401);
    expect(again.body.detail).toContain('revoked');
    expect((await engine.workbench('revokeCredential', { name: 'alice' })).status).toBe(404);
  });

  it('refuses a secret nobody holds, and takes the owner session itself at the sign-in form', async () => {
    const engine = await start({ inMemory: true });
    expect((await signIn(engine, 'tbw_not-a-credential')).status).toBe(401);
    expect((await signIn(engine, '')).status).toBe(400);
    const owner = await signIn(engine, engine.engine.browserWorkbench!.session);
    expect(owner.body).toEqual({ session: engine.engine.browserWorkbench!.session, name: null });
  });
});

describe('the trusted identity header', () => {
  const HEADER = 'X-Forwarded-User';

  it('names the person on requests from a trusted proxy, with no session', async () => {
    const engine = await start({ inMemory: true, identityHeader: HEADER, trustedProxies: ['127.0.0.1'] });
    const made = await engine.workbench('createCredential', { name: 'carol' });
    const identity = await engine.workbench('getIdentity', {}, { session: null, headers: { [HEADER]: 'carol' } });
    expect(identity.status, identity.text).toBe(200);
    expect(identity.body).toEqual({ person: { id: made.body.credential.id, name: 'carol' } });
    // Only a name that holds a credential: the proxy may not invent people, and a revoke still ends them.
    const stranger = await engine.workbench('getIdentity', {}, { session: null, headers: { [HEADER]: 'mallory' } });
    expect(stranger.status).toBe(403);
    await engine.workbench('revokeCredential', { name: 'carol' });
    expect((await engine.workbench('getIdentity', {}, { session: null, headers: { [HEADER]: 'carol' } })).status).toBe(403);
  });

  it('is ignored from any other address: the session decides, as without the flag', async () => {
    const engine = await start({ inMemory: true, identityHeader: HEADER, trustedProxies: ['10.9.8.7', '192.168.0.0/16'] });
    await engine.workbench('createCredential', { name: 'carol' });
    const alone = await engine.workbench('getIdentity', {}, { session: null, headers: { [HEADER]: 'carol' } });
    expect(alone.status).toBe(401);
    const withOwner = await engine.workbench('getIdentity', {}, { headers: { [HEADER]: 'carol' } });
    expect(withOwner.body).toEqual({ person: null });
  });

  it('is refused as a start option without a trusted proxy, or naming a header of the workbench itself', async () => {
    await expect(startTestEngine({ inMemory: true, identityHeader: HEADER })).rejects.toThrow('--trusted-proxy');
    await expect(startTestEngine({ inMemory: true, identityHeader: 'X-Tokenbench-Session', trustedProxies: ['127.0.0.1'] })).rejects.toThrow('header');
    await expect(startTestEngine({ inMemory: true, identityHeader: HEADER, trustedProxies: ['10.0.0.0/33'] })).rejects.toThrow('CIDR');
  });
});
