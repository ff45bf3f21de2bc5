import { afterEach, describe, expect, it } from 'vitest';
import type { TestEngine } from '../support/test-engine';
import { applicationIdOf, engineKeeping, expectEnvelope, raised, traced } from './event-support';

let t: TestEngine;
afterEach(() => t?.stop());

const APPLICATION_FIELDS = ['created_at', 'created_by', 'id', 'modified_at', 'modified_by', 'name', 'permissions', 'rules', 'tenant_id', 'type'];

describe('application events', () => {
  it('raises application.created, updated and deleted with the application but no key', async () => {
    t = await engineKeeping(['application.created', 'application.updated', 'application.deleted']);
    const managerId = await applicationIdOf(t, t.managementKey);
    const created = await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'backend', type: 'private', permissions: ['token:read'] }, headers: traced('trace-app') });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const put = await t.call('PUT', `/applications/${id}`, { key: t.managementKey, body: { name: 'backend 2', permissions: ['token:read', 'token:create'] }, headers: traced('trace-put') });
    expect(put.status).toBe(200);
    expect((await t.call('DELETE', `/applications/${id}`, { key: t.managementKey, headers: traced('trace-del') })).status).toBe(204);

    const [create, update, remove] = await raised(t);
    expect(create.type).toBe('application.created');
    expectEnvelope(create, t, { actorId: managerId, traceId: 'trace-app' });
    expect(Object.keys(create.data.application as object).sort()).toEqual(APPLICATION_FIELDS);
    expect(create.data.application).toMatchObject({ id, name: 'backend', type: 'private', permissions: ['token:read'], created_by: managerId });
    expect(update).toMatchObject({ type: 'application.updated', trace_id: 'trace-put', data: { application: { id, name: 'backend 2', modified_by: managerId } } });
    expect(remove).toMatchObject({ type: 'application.deleted', trace_id: 'trace-del', data: { application: { id, name: 'backend 2' } } });
    expect(JSON.stringify([create, update, remove])).not.toContain(created.body.key);
  });

  it('raises application.key.created and application.key.deleted, never with the secret', async () => {
    t = await engineKeeping(['application.key.created', 'application.key.deleted']);
    const app = (await t.call('POST', '/applications', { key: t.managementKey, body: { name: 'one', type: 'private', permissions: ['token:read'] } })).body;
    const made = await t.call('POST', `/applications/${app.id}/keys`, { key: t.managementKey, headers: traced('trace-key') });
    expect(made.status).toBe(201);
    expect((await t.call('DELETE', `/applications/${app.id}/keys/${made.body.id}`, { key: t.managementKey, headers: traced('trace-revoke') })).status).toBe(204);
    const regenerated = await t.call('POST', `/applications/${app.id}/regenerate`, { key: t.managementKey, headers: traced('trace-regenerate') });
    expect(regenerated.status).toBe(200);

    const events = await raised(t);
    expect(events.map((e) => [e.type, e.trace_id])).toEqual([
      ['application.key.created', expect.any(String)],
      ['application.key.created', 'trace-key'],
      ['application.key.deleted', 'trace-revoke'],
      ['application.key.deleted', 'trace-regenerate'],
      ['application.key.created', 'trace-regenerate'],
    ]);
    expect(Object.keys(events[1].data.application_key as object).sort()).toEqual(['application_id', 'created_at', 'created_by', 'id']);
    expect(events[1].data.application_key).toMatchObject({ id: made.body.id, application_id: app.id });
    const secrets = [app.key, made.body.key, regenerated.body.key];
    for (const secret of secrets) expect(JSON.stringify(events)).not.toContain(secret);
  });

  it('names the workbench user as the actor of a change made in the workbench', async () => {
    t = await engineKeeping(['application.created'], { workbenchRoutes: true });
    const res = await t.workbench('createApplication', { name: 'from the workbench', type: 'public', permissions: ['token:create'], rules: [] });
    expect(res.status).toBe(200);
    const [created] = await raised(t);
    expectEnvelope(created, t, { actorId: 'workbench', actorType: 'user', traceId: null });
  });
});
