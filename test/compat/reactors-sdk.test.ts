import { type BasisTheoryClient } from '@basis-theory/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../support/test-engine';
import { legacySdk, nodeSdk, privateAppKey } from '../support/vendor-sdks';

/**
 * Reactors (docs/api.md, Reactors) driven by the vendor's node SDK 5.7.0, unchanged: every /reactors route, auto-paging,
 * a synchronous react with detokenized args and tokenize, react-async and its results.
 */
let t: TestEngine;
let management: BasisTheoryClient;
let invoker: BasisTheoryClient;

beforeAll(async () => {
  t = await startTestEngine({ inMemory: true });
  management = nodeSdk(t, t.managementKey);
  invoker = nodeSdk(t, await privateAppKey(management, 'invoker', [{ container: '/', transform: 'reveal', permissions: ['reactor:invoke', 'token:create', 'token:read'] }]));
});
afterAll(() => t.stop());

const ECHO = 'module.exports = async (req) => ({ raw: { args: req.args, configuration: req.configuration } });';

describe('the node SDK (5.7.0) on /reactors', () => {
  it('creates, reads, replaces, patches and deletes a reactor', async () => {
    const created = await management.reactors.create({ name: 'echo', code: ECHO, configuration: { merchant: 'm-1' } });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created).toMatchObject({ name: 'echo', code: ECHO, state: 'active', configuration: { merchant: 'm-1' } });
    expect(created.createdAt).toBeInstanceOf(Date);

    expect(await management.reactors.get(created.id!)).toMatchObject({ id: created.id, name: 'echo' });

    const replaced = await management.reactors.update(created.id!, { name: 'echo v2', code: ECHO });
    expect(replaced).toMatchObject({ name: 'echo v2', configuration: {} });
    expect(replaced.modifiedAt).toBeInstanceOf(Date);

    await management.reactors.patch(created.id!, { configuration: { merchant: 'm-2' } });
    expect(await management.reactors.get(created.id!)).toMatchObject({ name: 'echo v2', configuration: { merchant: 'm-2' } });

    await management.reactors.delete(created.id!);
    await expect(management.reactors.get(created.id!)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('pages through every reactor, stopping at the first empty page, and filters by name', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await management.reactors.create({ name: `paged ${i}`, code: ECHO })).id!);
    const seen: string[] = [];
    for await (const reactor of await management.reactors.list({ size: 2 })) seen.push(reactor.id!);
    expect(seen).toEqual(expect.arrayContaining(ids));
    expect(new Set(seen).size).toBe(seen.length);
    expect((await management.reactors.list({ name: 'PAGED 3' })).data.map((r) => r.id)).toEqual([ids[3]]);
    for (const id of ids) await management.reactors.delete(id);
  });

  it('reacts with detokenized args, and tokenizes what the code returns', async () => {
    const card = await nodeSdk(t, t.privateKey).tokens.create({ type: 'card_number', data: '4242424242424242' });
    const reactor = await management.reactors.create({
      name: 'charge',
      code: `module.exports = async (req) => ({ raw: { last4: req.args.card.slice(-4), merchant: req.configuration.merchant }, tokenize: { kept: { type: 'token', data: 'secret-' + req.args.card.slice(-4) } } });`,
      configuration: { merchant: 'm-9' },
    });
    const answer = await invoker.reactors.react(reactor.id!, { args: { card: `{{ ${card.id} }}` } });
    expect(answer.raw).toEqual({ last4: '4242', merchant: 'm-9' });
    const kept = (answer.tokens as { kept: { id: string; type: string } }).kept;
    expect(kept).toMatchObject({ type: 'token' });
    const read = await invoker.tokens.get(kept.id);
    expect(read.data).toBe('secret-4242');
  });

  it('reacts asynchronously: 202 with an id, then the result the synchronous call would give', async () => {
    const reactor = await management.reactors.create({ name: 'slow', code: 'module.exports = async (req) => { await new Promise((r) => setTimeout(r, 300)); return { raw: req.args }; };' });
    const started = await invoker.reactors.reactAsync(reactor.id!, { args: { n: 1 } });
    expect(started.asyncReactorRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await invoker.reactors.results.get(reactor.id!, started.asyncReactorRequestId!)).toEqual({ status: 'pending' });
    let result: unknown;
    for (let i = 0; i < 100; i++) {
      result = await invoker.reactors.results.get(reactor.id!, started.asyncReactorRequestId!);
      if ((result as { status?: string }).status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(result).toEqual({ raw: { n: 1 } });
  });

  it('surfaces the code error as the SDK error with its status, and 403 for a key without the permission', async () => {
    const reactor = await management.reactors.create({
      name: 'refuses',
      code: `const { BadRequestError } = require('@basis-theory/basis-theory-reactor-formulas-sdk-js'); module.exports = async () => { throw new BadRequestError('amount is missing'); };`,
    });
    const failure = await invoker.reactors.react(reactor.id!, { args: {} }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ statusCode: 400, body: { status: 400, detail: 'Bad Request', errors: { error: ['amount is missing'] } } });
    await expect(nodeSdk(t, t.privateKey).reactors.list()).rejects.toMatchObject({ statusCode: 403 });
  });
});

describe('the legacy JS SDK (2.9.0) on /reactors', () => {
  it('creates, retrieves, lists, patches, reacts with and deletes a reactor', async () => {
    const bt = await legacySdk(t, t.managementKey);
    const created = await bt.reactors.create({ name: 'legacy', code: ECHO, configuration: { Some_Key: 'v' } });
    expect(created).toMatchObject({ name: 'legacy', configuration: { Some_Key: 'v' }, state: 'active' });
    expect((await bt.reactors.retrieve(created.id)).code).toBe(ECHO);
    expect((await bt.reactors.list({ page: 1, size: 100 })).data.map((r) => r.id)).toContain(created.id);
    await bt.reactors.patch(created.id, { name: 'legacy v2' });
    expect((await bt.reactors.retrieve(created.id)).name).toBe('legacy v2');
    const backend = await legacySdk(t, t.privateKey);
    expect(await backend.reactors.react(created.id, { args: { n: 1 } })).toEqual({ raw: { args: { n: 1 }, configuration: { Some_Key: 'v' } } });
    await bt.reactors.delete(created.id);
    await expect(bt.reactors.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });
});
