import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { remoteTargetSchema, exchangeSchema, type Exchange } from '../../shared/workbench/composer-contract';
import { callMethod, problemOf } from '../../electron/engine/workbench';
import type { CallName } from '../../shared/workbench/methods';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/** Remote targets: another service the Composer sends to, with a key the engine keeps sealed and never gives back. */
let local: TestEngine;
let remote: TestEngine | undefined;
afterEach(async () => {
  await local?.stop();
  await remote?.stop();
  remote = undefined;
});

/** A method of the table as a transport calls it: the request validated, a failure as the problem both transports send. */
async function workbench(name: CallName, request: unknown = {}): Promise<{ status: number; body: any; text: string }> {
  try {
    const body = await callMethod(local.engine.workbench, name, request);
    return { status: 200, body, text: JSON.stringify(body) };
  } catch (error) {
    const problem = problemOf(error);
    return { status: problem.status, body: problem, text: JSON.stringify(problem) };
  }
}

const bodyOf = (exchange: Exchange) => (exchange.outcome.kind === 'response' ? Buffer.from(exchange.outcome.body_base64, 'base64').toString('utf8') : null);

async function addRemote(base_url: string, api_key: string, name = 'second engine') {
  const added = await workbench('addRemoteTarget', { name, base_url, api_key });
  expect(added.status).toBe(200);
  return remoteTargetSchema.parse(added.body);
}

describe('remote targets', () => {
  it('keeps the key sealed on disk and shows only its last four characters', async () => {
    local = await startTestEngine();
    const key = 'key_remote_SECRET_canary_value_9f3k';
    const target = await addRemote('https://api.example.com/', key, 'hosted sandbox');
    expect(target).toMatchObject({ name: 'hosted sandbox', base_url: 'https://api.example.com', key_last4: '9f3k' });
    const listed = await workbench('listRemoteTargets');
    expect(listed.body).toEqual([target]);
    expect(listed.text).not.toContain('SECRET');
    await local.engine.stop();
    const files = readdirSync(local.dataDir!, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(readFileSync(join(file.parentPath, file.name)).includes('SECRET_canary'), file.name).toBe(false);
    }
  });

  it('refuses a base URL that is not plain http or https, saying why', async () => {
    local = await startTestEngine({ inMemory: true });
    for (const [url, why] of [
      ['ftp://example.com', 'must use http or https, not ftp'],
      ['https://user:pw@example.com', 'must not hold a user name or password'],
      ['https://example.com/?a=1', 'must not hold a query or fragment'],
      ['example.com', 'is not a URL'],
    ]) {
      const refused = await workbench('addRemoteTarget', { name: 'x', base_url: url, api_key: 'key_1234567890' });
      expect(refused.status, url).toBe(400);
      expect(refused.body.detail).toContain(why);
    }
    expect((await workbench('listRemoteTargets')).body).toEqual([]);
  });

  it("sends to the remote with its key, over real HTTP, and shows the remote's answer", async () => {
    local = await startTestEngine({ inMemory: true });
    remote = await startTestEngine({ inMemory: true, echoPort: 0 });
    const target = await addRemote(remote.url, remote.privateKey);
    const send = async (request: { method: 'GET' | 'POST'; path: string; headers?: [string, string][]; body?: string | null }) =>
      exchangeSchema.parse(
        await local.engine.workbench.sendRequest({ id: crypto.randomUUID(), target_id: target.id, headers: [], body: null, ...request }),
      );

    const created = await send({ method: 'POST', path: '/tokens', headers: [['Content-Type', 'application/json']], body: '{"type":"card_number","data":"4242424242424242"}' });
    expect(created.outcome).toMatchObject({ kind: 'response', status: 201 });
    expect(created.request.url).toBe(`${remote.url}/tokens`);
    // The remote's history holds it; this engine's has no entry to show.
    expect(created.entry).toBeNull();
    const id = JSON.parse(bodyOf(created)!).id as string;
    expect((await remote.call('GET', `/tokens/${id}`, { key: remote.privateKey })).status).toBe(200);
    expect((await local.call('GET', `/tokens/${id}`, { key: local.privateKey })).status).toBe(404);

    const proxied = await send({ method: 'POST', path: '/proxy/v1/charges', headers: [['BT-PROXY-URL', remote.engine.echoUrl!], ['Content-Type', 'application/json']], body: `{"pan":"{{ ${id} }}"}` });
    expect(JSON.parse(JSON.parse(bodyOf(proxied)!).body)).toEqual({ pan: '4242424242424242' });

    const wrongKey = await addRemote(remote.url, 'key_local_not_a_key_of_the_remote', 'wrong key');
    const refused = exchangeSchema.parse(await local.engine.workbench.sendRequest({ id: 'w', target_id: wrongKey.id, method: 'GET', path: '/tokens', headers: [], body: null }));
    expect(refused.outcome).toMatchObject({ kind: 'response', status: 401 });
  });

  it("records in this engine's history what the workbench sent to a remote, and how it went, never its key", async () => {
    local = await startTestEngine({ inMemory: true });
    remote = await startTestEngine({ inMemory: true });
    const target = await addRemote(remote.url, remote.privateKey, 'Staging');
    await local.engine.workbench.sendRequest({ id: 'r1', target_id: target.id, method: 'GET', path: '/tokens?size=5', headers: [], body: null }, 'composer');
    const unreachable = await addRemote('http://127.0.0.1:9', 'key_1234567890abcd', 'Gone dark');
    await local.engine.workbench.sendRequest({ id: 'r2', target_id: unreachable.id, method: 'POST', path: '/tokens', headers: [], body: '{}' }, 'composer');
    await local.engine.history.flush();
    const sent = (await local.engine.history.list(10)).filter((entry) => entry.method === 'SEND');
    expect(sent).toEqual([
      expect.objectContaining({
        kind: 'workbench',
        path: `/remote-targets/${unreachable.id}`,
        workbench_page: 'composer',
        details: { change: { action: 'sendRequest', summary: 'Sent POST /tokens to remote target “Gone dark”: not reached (ECONNREFUSED)' } },
      }),
      expect.objectContaining({
        kind: 'workbench',
        path: `/remote-targets/${target.id}`,
        details: { change: { action: 'sendRequest', summary: 'Sent GET /tokens?size=5 to remote target “Staging”: answered 200' } },
      }),
    ]);
    expect(JSON.stringify(sent)).not.toContain(remote.privateKey);
  });

  it('is deleted, and a request to it then says so', async () => {
    local = await startTestEngine({ inMemory: true });
    const target = await addRemote('http://127.0.0.1:9', 'key_1234567890abcd');
    expect((await workbench('deleteRemoteTarget', { id: target.id })).body).toEqual({ deleted: true });
    expect((await workbench('deleteRemoteTarget', { id: target.id })).body).toEqual({ deleted: false });
    const gone = await workbench('sendRequest', { id: 'x', target_id: target.id, method: 'GET', path: '/tokens', headers: [], body: null });
    expect(gone.status).toBe(404);
    expect(gone.body.detail).toContain('not found');
    const both = await workbench('sendRequest', { id: 'y', target_id: target.id, application_id: 'a', method: 'GET', path: '/tokens', headers: [], body: null });
    expect(both.status).toBe(400);
  });
});
