import { describe, expect, it } from 'vitest';
import { historyListSchema } from '../../shared/workbench/history-contract';
import { readAsSchema, tokenDetailSchema } from '../../shared/workbench/token-contract';
import { engineForEachTest, PAN } from './support/workbench-engine';

/** One token on the Tokens page: its detail, what an application would get of it, and the explicit reveal. */
const t = engineForEachTest();

async function create(body: Record<string, unknown>, headers?: Record<string, string>): Promise<string> {
  const created = await t.bench.call('POST', '/tokens', { key: t.bench.privateKey, body, headers });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

async function application(name: string, body: { permissions?: string[]; rules?: unknown[]; type?: string }): Promise<string> {
  const app = await t.bench.call('POST', '/applications', { key: t.bench.managementKey, body: { name, type: 'private', ...body } });
  expect(app.status, app.text).toBe(201);
  return app.body.id;
}

const rule = (container: string, transform: string, permissions: string[], description = 'a rule', priority = 1) => ({
  description,
  priority,
  container,
  transform,
  permissions,
});

describe('the token detail', () => {
  it('shows every field masked, how the application reads it, and the tokens that share its fingerprint', async () => {
    const first = await create({ type: 'card', data: { number: PAN, expiration_month: 12, expiration_year: 2031 } });
    const second = await create({ type: 'card', data: { number: PAN, expiration_month: 1, expiration_year: 2030 } });
    await create({ type: 'card', data: { number: '5555555555554444' } });
    const res = await t.bench.workbench('getToken', { application_id: t.backend, token_id: first });
    expect(res.status, res.text).toBe(200);
    const detail = tokenDetailSchema.parse(res.body);
    expect(detail.token).toMatchObject({
      id: first,
      type: 'card',
      data: { number: 'XXXXXXXXXXXX4242', expiration_month: 12, expiration_year: 2031 },
      containers: ['/pci/high/'],
      card: { bin: '42424242', last4: '4242', brand: 'visa' },
    });
    expect(detail.read_transform).toBe('mask');
    expect(detail.staged).toBeNull();
    expect(detail.same_fingerprint.total).toBe(2);
    expect(detail.same_fingerprint.tokens.map((t) => t.id).sort()).toEqual([first, second].sort());
    expect(res.text).not.toContain(PAN);
  });

  it('needs token:read as the wire API does, and reads a staged token inside its transaction', async () => {
    const id = await create({ type: 'token', data: 'x' });
    const searchOnly = await application('search only', { permissions: ['token:search'] });
    const refused = await t.bench.workbench('getToken', { application_id: searchOnly, token_id: id });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('The application lacks token:read on container /general/high/');

    const transaction = (await t.bench.call('POST', '/transactions', { key: t.bench.privateKey })).body.id;
    const staged = await create({ type: 'card_number', data: PAN }, { 'BT-TRANSACTION-ID': transaction });
    expect((await t.bench.workbench('getToken', { application_id: t.backend, token_id: staged })).status).toBe(404);
    const inside = await t.bench.workbench('getToken', { application_id: t.backend, token_id: staged, transaction_id: transaction });
    expect(inside.status, inside.text).toBe(200);
    expect(inside.body).toMatchObject({ token: { id: staged, data: 'XXXXXXXXXXXX4242' }, staged: { transaction_id: transaction, operation: 'create' } });
    // A committed token a transaction has changed says so, whether or not the transaction is named.
    await t.bench.call('DELETE', `/tokens/${id}`, { key: t.bench.privateKey, headers: { 'BT-TRANSACTION-ID': transaction } });
    expect((await t.bench.workbench('getToken', { application_id: t.backend, token_id: id })).body.staged).toEqual({
      transaction_id: transaction,
      operation: 'delete',
    });
  });
});

describe('read as an application', () => {
  it('shows what a masking rule gives, which rule decided, and that the proxy would not use it without token:use', async () => {
    const id = await create({ type: 'card_number', data: PAN });
    const masking = await application('masking reader', { rules: [rule('/pci/', 'mask', ['token:read'], 'pci masked', 5)] });
    const res = await t.bench.workbench('readTokenAs', { application_id: masking, token_id: id });
    expect(res.status, res.text).toBe(200);
    const readAs = readAsSchema.parse(res.body);
    expect(readAs.application.name).toBe('masking reader');
    expect(readAs.read).toMatchObject({ transform: 'mask', data: 'XXXXXXXXXXXX4242' });
    expect(readAs.read.reason).toBe('Allowed, masked: /pci/high/ by rule “pci masked” (priority 5, on /pci/).');
    expect(readAs.read.containers).toEqual([{ container: '/pci/high/', rule: expect.objectContaining({ description: 'pci masked', priority: 5 }), bare: false }]);
    expect(readAs.use).toMatchObject({ transform: null });
    expect(readAs.use.reason).toBe("Refused: no access rule grants token:use on /pci/high/, nor do the application's own permissions.");
    expect(readAs.others.map((d) => [d.permission, d.transform])).toEqual([
      ['token:create', null],
      ['token:update', null],
      ['token:delete', null],
      ['token:search', null],
    ]);
    expect(res.text).not.toContain(PAN);
  });

  it('says plaintext without sending it, tells bare permissions apart, and refuses the proxy to a public application', async () => {
    const id = await create({ type: 'card_number', data: PAN });
    const revealer = await application('revealer', { rules: [rule('/', 'reveal', ['token:read', 'token:use'])] });
    const revealed = await t.bench.workbench('readTokenAs', { application_id: revealer, token_id: id });
    expect(revealed.body.read).toMatchObject({ transform: 'reveal' });
    expect(revealed.body.read).not.toHaveProperty('data');
    expect(revealed.text).not.toContain(PAN);
    expect(revealed.body.use).toMatchObject({ transform: 'reveal' });

    const bare = await t.bench.workbench('readTokenAs', { application_id: t.backend, token_id: id });
    expect(bare.body.read.reason).toBe("Allowed, masked: /pci/high/ by the application's own permissions.");
    expect(bare.body.read.containers).toEqual([{ container: '/pci/high/', rule: null, bare: true }]);
    expect(bare.body.use).toMatchObject({ transform: 'reveal' });

    const publicApp = await application('browser', { type: 'public', permissions: ['token:create'] });
    const publicUse = await t.bench.workbench('readTokenAs', { application_id: publicApp, token_id: id });
    expect(publicUse.body.use.reason).toBe('Refused: the proxy takes private applications only; this one is public.');
  });

  it('previews a draft of the rules with the same validation as an update, without saving it', async () => {
    const id = await create({ type: 'token', data: 'x', containers: ['/general/low/'] });
    const draft = { permissions: [], rules: [rule('/general/', 'redact', ['token:read'])] };
    const preview = await t.bench.workbench('readTokenAs', { application_id: t.backend, token_id: id, draft });
    expect(preview.body.read).toMatchObject({ transform: 'redact' });
    expect(preview.body.read).not.toHaveProperty('data');
    expect((await t.bench.workbench('readTokenAs', { application_id: t.backend, token_id: id })).body.read.transform).toBe('mask');

    const invalid = await t.bench.workbench('readTokenAs', { application_id: t.backend, token_id: id, draft: { permissions: ['token:fly'], rules: [] } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual({ 'draft.permissions.0': ['token:fly is not a permission a private application can hold'] });
  });
});

describe('revealing a token', () => {
  it('answers its plaintext as the application, and records in history that it was revealed, by id, never the value', async () => {
    const id = await create({ type: 'card_number', data: PAN });
    const res = await t.bench.workbench('revealToken', { application_id: t.backend, token_id: id });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ data: PAN });
    expect((await t.bench.workbench('revealToken', { application_id: t.backend, token_id: 'no-such-token' })).status).toBe(404);

    await t.bench.engine.history.flush();
    const entries = historyListSchema.parse((await t.bench.workbench('listHistory', { limit: 10 })).body);
    const reveals = entries.filter((entry) => entry.kind === 'workbench');
    expect(reveals.map(({ method, path, status, application_id, reveal }) => ({ method, path, status, application_id, reveal }))).toEqual([
      {
        method: 'REVEAL',
        path: '/tokens/no-such-token',
        status: 404,
        application_id: t.backend,
        reveal: { target: 'token', token_id: 'no-such-token', application_id: t.backend, summary: 'Could not reveal the data of token no-such-token as application “Tokenbench backend”' },
      },
      {
        method: 'REVEAL',
        path: `/tokens/${id}`,
        status: 200,
        application_id: t.backend,
        reveal: { target: 'token', token_id: id, application_id: t.backend, summary: `Revealed the data of token ${id} as application “Tokenbench backend”` },
      },
    ]);
    expect(JSON.stringify(entries)).not.toContain(PAN);
  });

  it('reveals only what the application may read itself, as POST /detokenize decides, and says why it refuses', async () => {
    const id = await create({ type: 'card_number', data: PAN, containers: ['/pci/'] });
    const masked = await application('masked reader', { rules: [rule('/pci/', 'mask', ['token:read'], 'pci masked', 5)] });
    const refused = await t.bench.workbench('revealToken', { application_id: masked, token_id: id });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe(
      `Application “masked reader” reads token ${id} masked, by its rule “pci masked” (priority 5, on /pci/): it may not see the plaintext, so the workbench does not show it as this application. Reveal it as an application whose access rules reveal it, or change these in Settings.`,
    );
    expect(refused.text).not.toContain(PAN);
    // What the application's own key gets from POST /detokenize agrees.
    const key = (await t.bench.workbench('createApplicationKey', { application_id: masked })).body.key.key;
    expect((await t.bench.call('POST', '/detokenize', { key, body: { pan: `{{ ${id} }}` } })).body).toEqual({ pan: 'XXXXXXXXXXXX4242' });

    const useOnly = await application('proxy only', { permissions: ['token:use'] });
    const unread = await t.bench.workbench('revealToken', { application_id: useOnly, token_id: id });
    expect(unread.status).toBe(403);
    expect(unread.body.detail).toMatch(/^Application “proxy only” may not read token .*: no access rule grants token:read on \/pci\/, nor do its permissions\./);

    const revealing = await application('revealing reader', { rules: [rule('/pci/', 'reveal', ['token:read'])] });
    expect((await t.bench.workbench('revealToken', { application_id: revealing, token_id: id })).body).toEqual({ data: PAN });

    await t.bench.engine.history.flush();
    const reveals = historyListSchema.parse((await t.bench.workbench('listHistory', { limit: 20, filter: { view: 'reveals' } })).body);
    expect(reveals.map((entry) => [entry.status, entry.application_id])).toEqual([
      [200, revealing],
      [403, useOnly],
      [403, masked],
    ]);
  });

  it('reveals a staged token inside its transaction', async () => {
    const transaction = (await t.bench.call('POST', '/transactions', { key: t.bench.privateKey })).body.id;
    const staged = await create({ type: 'card_number', data: PAN }, { 'BT-TRANSACTION-ID': transaction });
    expect((await t.bench.workbench('revealToken', { application_id: t.backend, token_id: staged })).status).toBe(404);
    expect((await t.bench.workbench('revealToken', { application_id: t.backend, token_id: staged, transaction_id: transaction })).body).toEqual({ data: PAN });
  });
});
