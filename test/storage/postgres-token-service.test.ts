import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../electron/engine/access/authenticator';
import { AccessPolicy } from '../../electron/engine/access/permissions';
import { systemCaller } from '../../electron/engine/access/system-caller';
import { EventOutbox, SYSTEM_CAUSE } from '../../electron/engine/events/event-outbox';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { ApiProblem } from '../../electron/engine/server/problem';
import { Sealer } from '../../electron/engine/storage/crypto';
import type { AnyUnitRunner, SqlDialect } from '../../electron/engine/storage/unit';
import { IntentStore } from '../../electron/engine/token-intents/intent-store';
import { TokenIntents } from '../../electron/engine/token-intents/token-intents';
import { TransactionManager } from '../../electron/engine/transactions/transaction-manager';
import { TransactionPanel } from '../../electron/engine/transactions/transaction-panel';
import { UnitTransactionStore } from '../../electron/engine/transactions/transaction-store';
import { TransactionWriter } from '../../electron/engine/transactions/transaction-writer';
import { TokenQueries } from '../../electron/engine/vault/token-queries';
import { TokenService, type WriteContext } from '../../electron/engine/vault/token-service';
import { UnitTokenStore } from '../../electron/engine/vault/token-store';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const TENANT = 'tenant-1';
const sealer = new Sealer(randomBytes(32));
const both = bothDatabases('token_service');
const system = systemCaller(TENANT, { id: 'app-1', name: 'App' });
const application = { ...system.application, permissions: [...system.application.permissions, 'token-intent:create' as const] };
const caller: Caller = { ...system, application, policy: new AccessPolicy(application) };
const direct: WriteContext = { caller, cause: null };

/** The vault's services over a runner, wired as the engine wires them. */
function servicesOver(units: AnyUnitRunner, dialect: SqlDialect) {
  const outbox = new EventOutbox(units, TENANT);
  const store = new UnitTokenStore(units, sealer, outbox);
  const tokens = new TokenService(store, sealer, new ExpressionEngine(), TENANT);
  const intents = new TokenIntents(new IntentStore(units, sealer), tokens, TENANT, () => 600, outbox);
  tokens.useIntents(intents);
  const transactionStore = new UnitTransactionStore(units, sealer);
  const transactions = new TransactionManager(transactionStore, store, 60);
  tokens.useWriter(new TransactionWriter(transactions, store, 'BT-TRANSACTION-ID'));
  const queries = new TokenQueries(store, tokens, dialect);
  /** The token's plaintext as the vault holds it now: detokenized with reveal. */
  const plain = async (id: string) => (await tokens.tokensForExpressions([id], caller, 'token:read', 'reveal')).get(id)?.data;
  return { store, tokens, intents, transactions, panel: new TransactionPanel(transactionStore, tokens), queries, plain };
}

/** The status of the ApiProblem `work` answers, or its value. */
async function statusOf<T>(work: () => T | Promise<T>): Promise<T | number> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiProblem) return error.status;
    throw error;
  }
}

describePostgres('the token service on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    let services: ReturnType<typeof servicesOver>;
    beforeAll(() => {
      services = servicesOver(both.runners[side], side === 'SQLite' ? 'sqlite' : 'postgres');
    });

    it('creates, reads, merge-patches and deletes a token, and refuses a taken id', async () => {
      const { tokens, plain } = services;
      const made = await tokens.create({ id: 'p-1', type: 'token', data: { name: 'Ada', city: 'Paris' }, metadata: { k: 'v' } }, direct);
      expect(made).toMatchObject({ id: 'p-1', _extras: { deduplicated: false } });
      expect(await plain('p-1')).toEqual({ name: 'Ada', city: 'Paris' });
      expect(await statusOf(() => tokens.create({ id: 'p-1', type: 'token', data: 'again' }, direct))).toBe(409);
      const grouped = await tokens.createGrouped({ id: 'p-2', type: 'token', data: 'grouped' }, direct);
      expect(grouped.id).toBe('p-2');

      await tokens.update('p-1', { data: { city: null, country: 'FR' }, metadata: { k: null, n: '1' } }, direct);
      expect(await tokens.read('p-1', caller, SYSTEM_CAUSE)).toMatchObject({ id: 'p-1', metadata: { n: '1' } });
      expect(await plain('p-1')).toEqual({ name: 'Ada', country: 'FR' });
      expect(await statusOf(() => tokens.update('nope', { data: 'x' }, direct))).toBe(404);

      expect(await tokens.delete('p-1', direct)).toBe('token');
      expect(await statusOf(() => tokens.read('p-1', caller, SYSTEM_CAUSE))).toBe(404);
      expect(await statusOf(() => tokens.delete('p-1', direct))).toBe(404);
      await tokens.delete('p-2', direct);
    });

    it('detokenizes a cold token after a wait and a hot one at once, and names what is missing', async () => {
      const { tokens } = services;
      await tokens.create({ id: 'd-1', type: 'token', data: 'plain d-1' }, direct);
      const cold = tokens.tokensForExpressions(['d-1'], caller, 'token:read', 'reveal');
      expect((await cold).get('d-1')?.data).toBe('plain d-1');
      // Now in the hot cache: answered in the same turn on either database.
      const hot = tokens.tokensForExpressions(['d-1'], caller, 'token:read', 'reveal');
      expect(hot).toBeInstanceOf(Map);
      expect((hot as Map<string, { data: unknown }>).get('d-1')?.data).toBe('plain d-1');
      expect(await statusOf(() => tokens.tokensForExpressions(['d-1', 'd-gone'], caller, 'token:read', 'reveal'))).toBe(400);
      expect(await tokens.detokenize({ v: '{{ d-1 }}' }, caller, SYSTEM_CAUSE)).toEqual({ v: 'plain d-1' });
      await tokens.delete('d-1', direct);
    });

    it('tokenizes a body, deduplicating against the vault and the batch', async () => {
      const { tokens } = services;
      const first = (await tokens.create({ type: 'social_security_number', data: '123-45-6789', deduplicate_token: true }, direct)).id;
      const body = await tokens.tokenize(
        { a: { type: 'social_security_number', data: '123-45-6789', deduplicate_token: true }, b: { type: 'social_security_number', data: '987-65-4321', deduplicate_token: true }, c: { type: 'social_security_number', data: '987-65-4321', deduplicate_token: true } },
        direct,
        (value) => value as never,
      );
      const ids = body as Record<string, { id: string; _extras: { deduplicated: boolean } }>;
      expect(ids.a).toMatchObject({ id: first, _extras: { deduplicated: true } });
      expect(ids.c.id).toBe(ids.b.id);
      for (const id of new Set([first, ids.b.id])) await tokens.delete(id, direct);
    });

    it('pages through a search', async () => {
      const { tokens, queries } = services;
      for (const n of [1, 2, 3, 4, 5]) await tokens.create({ id: `s-${n}`, type: 'token', data: `s${n}`, metadata: { group: 'paged' } }, direct);
      const seen: string[] = [];
      let start: string | undefined;
      do {
        const page = await queries.pageV2(caller, 'token:read', { metadata: { group: 'paged' } }, start, 2);
        seen.push(...page.data.map((view) => view.id));
        start = page.pagination.next ?? undefined;
      } while (start);
      expect(seen).toEqual(['s-1', 's-2', 's-3', 's-4', 's-5']);
      expect((await queries.pageV1(caller, 'token:read', { metadata: { group: 'paged' } }, 2, 2)).pagination.total_items).toBe(5);
      for (const n of [1, 2, 3, 4, 5]) await tokens.delete(`s-${n}`, direct);
    });

    it('converts a token intent into a token once', async () => {
      const { tokens, intents, plain } = services;
      const intent = await intents.create({ type: 'card', data: { number: '4242424242424242' } }, caller, SYSTEM_CAUSE);
      const made = await tokens.create({ token_intent_id: intent.id }, direct);
      expect(made.type).toBe('card');
      expect(await plain(made.id)).toMatchObject({ number: '4242424242424242' });
      expect(await statusOf(() => tokens.create({ token_intent_id: intent.id }, direct))).toBe(400);
      await tokens.delete(made.id, direct);
    });

    it('stages writes in a transaction that its own reads see, commits one and rolls another back', async () => {
      const { tokens, transactions, panel, plain } = services;
      await tokens.create({ id: 't-1', type: 'token', data: { v: 0 } }, direct);
      const open = await transactions.create(caller);
      const inside: WriteContext = { caller, transactionId: open.id, cause: null };
      await tokens.update('t-1', { data: { v: 1 } }, inside);
      // The second patch builds on the staged one, not on the vault's.
      await tokens.update('t-1', { data: { w: 2 } }, inside);
      await tokens.create({ id: 't-2', type: 'token', data: 'staged' }, inside);
      expect(await plain('t-1')).toEqual({ v: 0 });
      const view = await panel.get(open.id);
      expect(view?.operations.map((op) => [op.token_id, op.operation])).toEqual([['t-1', 'update'], ['t-1', 'update'], ['t-2', 'create']]);
      expect((await panel.page({ limit: 10 })).counts.open).toBe(1);
      await transactions.commit(open.id);
      expect(await plain('t-1')).toEqual({ v: 1, w: 2 });
      expect(await plain('t-2')).toBe('staged');

      const other = await transactions.create(caller);
      await tokens.delete('t-1', { caller, transactionId: other.id, cause: null });
      await transactions.rollback(other.id);
      expect(await plain('t-1')).toEqual({ v: 1, w: 2 });
      for (const id of ['t-1', 't-2']) await tokens.delete(id, direct);
    });
  });
});
