import { BasisTheoryClient, type BasisTheoryError } from '@basis-theory/node-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { nodeSdk } from '../support/vendor-sdks';

/**
 * Webhooks (docs/api.md, Webhooks) driven by the vendor's node SDK, unchanged: every /webhooks route, the event types,
 * ping, each error row and the limit of five.
 */
let t: TestEngine;
let management: BasisTheoryClient;
const receiver = 'http://localhost:3000/hooks';

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  management = nodeSdk(t, t.managementKey);
});
afterAll(() => t.stop());
afterEach(async () => {
  for (const webhook of (await management.webhooks.list()).data) await management.webhooks.delete(webhook.id);
});

const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('the call succeeded'), (error: unknown) => error as BasisTheoryError);

describe('the node SDK (5.7.0) on /webhooks', () => {
  it('creates, reads, lists, replaces and deletes a webhook; the SDK example events are read with dots', async () => {
    const created = await management.webhooks.create({ name: 'webhook-create', url: receiver, notifyEmail: 'dev@example.com', events: ['token:created', 'token.updated', 'token:created'] });
    expect(created).toMatchObject({ name: 'webhook-create', url: receiver, status: 'enabled', notifyEmail: 'dev@example.com', events: ['token.created', 'token.updated'] });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.tenantId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.createdBy).toBe(t.engine.bootstrapKeys!.management.application_id);
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.modifiedAt).toBeUndefined();

    expect(await management.webhooks.get(created.id)).toEqual(created);
    const list = await management.webhooks.list();
    expect(list.pagination).toEqual({ pageSize: 1 });
    expect(list.data).toEqual([created]);

    const updated = await management.webhooks.update(created.id, { name: 'webhook-update', url: `${receiver}/v2`, events: ['proxy.invoked'] });
    expect(updated).toMatchObject({ id: created.id, name: 'webhook-update', url: `${receiver}/v2`, events: ['proxy.invoked'], status: 'enabled' });
    // A replace leaves out what it does not give: the notice address goes.
    expect(updated.notifyEmail).toBeUndefined();
    expect(updated.modifiedAt).toBeInstanceOf(Date);
    expect(updated.modifiedBy).toBe(created.createdBy);

    await management.webhooks.delete(created.id);
    expect(await failure(management.webhooks.get(created.id))).toMatchObject({ statusCode: 404 });
    expect(await failure(management.webhooks.delete(created.id))).toMatchObject({ statusCode: 404 });
    expect(await failure(management.webhooks.update(created.id, { name: 'gone', url: receiver, events: ['token.created'] }))).toMatchObject({ statusCode: 404 });
  });

  it('lists the event types, sorted, and answers ping', async () => {
    const types = await management.webhooks.events.list();
    expect(types).toHaveLength(52);
    expect(types).toEqual([...types].sort());
    expect(types).toEqual(expect.arrayContaining(['token.created', 'token.read', 'proxy.invoked', 'application.key.created']));
    await expect(management.webhooks.ping()).resolves.toBeUndefined();
    const bare = await t.call('GET', '/ping');
    expect([bare.status, bare.text]).toEqual([200, '']);
  });

  it('refuses a sixth webhook with 422', async () => {
    for (let i = 0; i < 5; i++) await management.webhooks.create({ name: `hook ${i}`, url: receiver, events: ['token.created'] });
    const sixth = await failure(management.webhooks.create({ name: 'sixth', url: receiver, events: ['token.created'] }));
    expect(sixth).toMatchObject({ statusCode: 422, body: { detail: expect.stringMatching(/at most 5 webhooks/) } });
  });

  it('names each field it refuses in a 400', async () => {
    const bad = await failure(management.webhooks.create({ name: ' ', url: 'ftp://example.com', notifyEmail: 'not-mail', events: ['token.created', 'token.exploded'] }));
    expect(bad).toMatchObject({ statusCode: 400 });
    expect((bad.body as { errors: Record<string, string[]> }).errors).toEqual({
      name: ['name is required'],
      url: ['url must use http or https, not ftp'],
      notify_email: ['notify_email must be an e-mail address'],
      'events[1]': ['token.exploded is not an event type (GET /webhooks/event-types lists them)'],
    });
    const none = await failure(management.webhooks.create({ name: 'none', url: receiver, events: [] }));
    expect((none.body as { errors: object }).errors).toEqual({ events: ['events must name at least one event type'] });
    const status = await t.call('PUT', `/webhooks/${(await management.webhooks.create({ name: 's', url: receiver, events: ['token.created'] })).id}`, {
      key: t.managementKey,
      body: { name: 's', url: receiver, events: ['token.created'], status: 'paused' },
    });
    expect([status.status, status.body.errors]).toEqual([400, { status: ['status must be enabled or disabled'] }]);
  });

  it('answers 401 without a valid key and 403 to a key without the permission', async () => {
    expect(await failure(nodeSdk(t, 'key_unknown').webhooks.list())).toMatchObject({ statusCode: 401 });
    expect(await failure(nodeSdk(t, t.privateKey).webhooks.list())).toMatchObject({ statusCode: 403 });
    expect(await failure(nodeSdk(t, t.privateKey).webhooks.events.list())).toMatchObject({ statusCode: 403 });
  });

  it('takes the webhooks: spelling of the permissions and keeps the webhook: one', async () => {
    const app = await management.applications.create({ name: 'hooks', type: 'management', permissions: ['webhooks:create', 'webhook:read'] });
    expect(app.permissions).toEqual(['webhook:create', 'webhook:read']);
    const hooks = nodeSdk(t, app.key!);
    await hooks.webhooks.create({ name: 'by plural', url: receiver, events: ['token.created'] });
    expect(await failure(hooks.webhooks.delete((await hooks.webhooks.list()).data[0].id))).toMatchObject({ statusCode: 403 });
  });
});
