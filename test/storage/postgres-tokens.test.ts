import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { Sealer } from '../../electron/engine/storage/crypto';
import { NotifyChannel } from '../../electron/engine/storage/postgres/notify-channel';
import { PostgresUnits } from '../../electron/engine/storage/postgres/unit-driver';
import { type AnyUnitRunner, query, tx } from '../../electron/engine/storage/unit';
import { ActiveTokens } from '../../electron/engine/vault/active-tokens';
import { IntentStore, settleHolds, type StoredIntent, takingIntent } from '../../electron/engine/token-intents/intent-store';
import { applyTokenWrites, LIVE, type StoredToken, type TokenWrite, UnitTokenStore } from '../../electron/engine/vault/token-store';
import { bothDatabases, SIDES, storedEventTypes } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';
import { storedToken } from '../support/stored-token';

const TENANT = 'tenant-1';
const sealer = new Sealer(randomBytes(32));
const both = bothDatabases('token_store');

/** Made a second apart, in the order of their ids' last digit. */
const token = (id: string, fields: Partial<StoredToken> = {}): StoredToken =>
  storedToken(id, { containers: ['/general/'], created_at: `2026-01-01T00:00:0${id.slice(-1)}.000Z`, ...fields });
const create = (t: StoredToken): TokenWrite => ({ op: 'create', token: t, searchTerms: [] });

const everyIntent = query<string>('token test: every intent', 'SELECT id FROM token_intents ORDER BY id', { pluck: true });

/** The store over a runner, and its writes as the vault lands them (one unit, then settled). */
function storeOver(units: AnyUnitRunner) {
  const outbox = new EventOutbox(units, TENANT);
  outbox.subscribe(['token.expired']);
  const store = new UnitTokenStore(units, sealer, outbox);
  const write = async (...list: TokenWrite[]) => store.runWrites(list, () => applyTokenWrites(store.writing, list));
  return { store, write };
}

describePostgres('the token store on SQLite and PostgreSQL', () => {
  describe.each(SIDES)('over %s', (side) => {
    let store: UnitTokenStore;
    let write: (...list: TokenWrite[]) => Promise<void>;
    beforeAll(() => ({ store, write } = storeOver(both.runners[side])));

    it('creates, reads one and many, finds by fingerprint, updates and deletes', async () => {
      await write(create(token('a-1')), create(token('a-2', { fingerprint: 'fp', type: 'card' })));
      expect(await store.get('a-1')).toMatchObject({ id: 'a-1', data: 'secret of a-1', containers: ['/general/'] });
      expect(await store.get('nope')).toBeUndefined();
      expect((await store.getMany(['a-2', 'nope', 'a-1'])).map((t) => t?.id)).toEqual(['a-2', undefined, 'a-1']);
      expect((await store.findByFingerprint('card', 'fp'))?.id).toBe('a-2');
      expect(await store.idTaken('a-1')).toBe(true);
      expect(await store.count()).toBe(2);
      expect(await store.countsByType()).toEqual([
        { type: 'card', count: 1, last_created_at: '2026-01-01T00:00:02.000Z' },
        { type: 'token', count: 1, last_created_at: '2026-01-01T00:00:01.000Z' },
      ]);

      // A hot token (getMany keeps it) is forgotten by the store's own write.
      await write({ op: 'update', token: token('a-1', { data: 'changed', modified_at: '2026-02-01T00:00:00.000Z' }), searchTerms: [] });
      expect((await store.getMany(['a-1']))[0]?.data).toBe('changed');
      await write({ op: 'delete', id: 'a-1' });
      expect(await store.getMany(['a-1'])).toEqual([undefined]);
      expect(await store.idTaken('a-1')).toBe(false);
      await expect(write(create(token('a-2')))).rejects.toThrow();
      expect((await store.liveByCreation()).map((t) => t.id)).toEqual(['a-2']);
      await write({ op: 'delete', id: 'a-2' });
    });

    it('answers a search a page at a time in creation order, with its count', async () => {
      await write(...['s-1', 's-2', 's-3', 's-4', 's-5'].map((id) => create(token(id))));
      const page = async (offset: number) =>
        (await store.search(`${LIVE} AND id >= @from`, { now: new Date().toISOString(), from: 's-', size: 2, offset }, 'ORDER BY created_at, id LIMIT @size OFFSET @offset')).map((row) => row.id);
      expect([await page(0), await page(2), await page(4)]).toEqual([['s-1', 's-2'], ['s-3', 's-4'], ['s-5']]);
      expect(await store.countMatching(`SELECT COUNT(*) AS n FROM tokens WHERE ${LIVE} AND id >= @from`, { now: new Date().toISOString(), from: 's-' })).toBe(5);
      await write(...['s-1', 's-2', 's-3', 's-4', 's-5'].map((id): TokenWrite => ({ op: 'delete', id })));
    });

    it("converts an intent in the token's unit: taken with its token, kept when the unit fails; held by a transaction until its end", async () => {
      const intents = new IntentStore(both.runners[side], sealer);
      const units = both.runners[side];
      const intent = (id: string, expires_at = '2999-01-01T00:00:00.000Z'): StoredIntent => ({
        id,
        type: 'card',
        data: { number: '4242424242424242' },
        fingerprint: null,
        details: {},
        created_by: 'app-1',
        created_at: '2026-01-01T00:00:00.000Z',
        expires_at,
      });
      for (const made of [intent('i-1'), intent('i-2'), intent('i-3'), intent('i-old', '2020-01-01T00:00:00.000Z')]) await units.run(intents.inserting(made));
      expect((await intents.get('i-1'))?.type).toBe('card');
      expect((await intents.getMany(['i-1', 'i-old'])).map((found) => [found.id, found.data])).toEqual([['i-1', { number: '4242424242424242' }]]);
      expect((await intents.newest(10)).map((found) => found.id).sort()).toEqual(['i-1', 'i-2', 'i-3']);

      // A conversion that fails after taking its intent (its token's id is taken) gives it back with its rollback.
      await write(create(token('c-1')));
      // Async, so that SQLite's runner, which throws at once, rejects as PostgreSQL's does.
      const converting = async (intentId: string, transactionId?: string) =>
        units.run(function* () {
          if (!(yield* takingIntent(intentId, transactionId))) throw new Error('gone');
          yield* applyTokenWrites(store.writing, [create(token('c-1'))]);
        });
      await expect(converting('i-1')).rejects.toThrow();
      expect(await intents.get('i-1')).toBeDefined();
      await write({ op: 'delete', id: 'c-1' });
      await converting('i-1');
      expect(await intents.get('i-1')).toBeUndefined();
      await expect(converting('i-1')).rejects.toThrow('gone');
      await write({ op: 'delete', id: 'c-1' });

      // Held by an open transaction: gone to reads; its commit consumes it, its rollback gives it back.
      for (const [id, transaction] of [['i-2', 'tx-commit'], ['i-3', 'tx-rollback']]) {
        await converting(id, transaction);
        await write({ op: 'delete', id: 'c-1' });
      }
      expect(await intents.getMany(['i-2', 'i-3'])).toEqual([]);
      await units.run(() => settleHolds('tx-commit', true));
      await units.run(() => settleHolds('tx-rollback', false));
      expect((await intents.getMany(['i-2', 'i-3'])).map((found) => found.id)).toEqual(['i-3']);
      expect(await units.read(() => tx.all(everyIntent))).toEqual(['i-3', 'i-old']);

      expect(await intents.purgeExpired()).toBe(1);
      expect(await units.read(() => tx.all(everyIntent))).toEqual(['i-3']);
      expect(await units.run(() => intents.deleting('i-3'))).toBe(true);
    });

    it("counts the month's active tokens once each, created ones once they land, and forgets them when cleared", async () => {
      const active = new ActiveTokens(both.runners[side], store);
      await write(create(token('m-1')), create(token('m-2')));
      active.mark('m-1');
      active.mark('x-9');
      expect(await active.count()).toBe(3);
      await active.purgeOld();
      active.mark('x-9');
      await active.flush();
      expect(await active.count()).toBe(3);
      await active.clear();
      expect(await active.count()).toBe(0);
      await write({ op: 'delete', id: 'm-1' }, { op: 'delete', id: 'm-2' });
    });

    it('purges the expired tokens, each with its token.expired, and frees their ids', async () => {
      await write(create(token('e-1', { expires_at: '2020-01-01T00:00:00.000Z' })), create(token('e-2')));
      const before = (await storedEventTypes(both.runners[side])).length;
      expect(await store.purgeExpired()).toBe(1);
      expect((await storedEventTypes(both.runners[side])).slice(before)).toEqual(['token.expired']);
      expect(await store.purgeExpired()).toBe(0);
      expect(await store.get('e-1')).toBeUndefined();
      await write(create(token('e-1')));
      expect((await store.get('e-1'))?.data).toBe('secret of e-1');
      await write({ op: 'delete', id: 'e-1' }, { op: 'delete', id: 'e-2' });
    });
  });

  it('never answers a token deleted or changed on another replica once its notice has come, though it held it hot', async () => {
    const url = both.pool().options.connectionString!;
    const replicas = [new PostgresUnits(both.pool()), new PostgresUnits(both.pool())];
    const channels = replicas.map(() => new NotifyChannel(url));
    await Promise.all(channels.map((channel) => channel.start()));
    const stops = await Promise.all(replicas.map((units, i) => units.hear(channels[i])));
    try {
      const [here, there] = replicas.map((units) => storeOver(units));
      await here.write(create(token('r-1')), create(token('r-2')));
      // The other replica decrypts them once and holds them for the next requests.
      expect((await there.store.getMany(['r-1', 'r-2'])).map((t) => t?.data)).toEqual(['secret of r-1', 'secret of r-2']);

      await here.write({ op: 'delete', id: 'r-1' }, { op: 'update', token: token('r-2', { data: 'changed' }), searchTerms: [] });
      await expect.poll(async () => (await there.store.getMany(['r-1', 'r-2'])).map((t) => t?.data), { timeout: 1_000 }).toEqual([undefined, 'changed']);
    } finally {
      for (const stop of stops) await stop();
      for (const channel of channels) await channel.stop();
    }
  });
});
