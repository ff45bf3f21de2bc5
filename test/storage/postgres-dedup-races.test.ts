import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import type { Caller } from '../../electron/engine/access/authenticator';
import { AccessPolicy } from '../../electron/engine/access/permissions';
import { systemCaller } from '../../electron/engine/access/system-caller';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { Sealer } from '../../electron/engine/storage/crypto';
import { query, tx } from '../../electron/engine/storage/unit';
import { IntentStore } from '../../electron/engine/token-intents/intent-store';
import { TokenIntents } from '../../electron/engine/token-intents/token-intents';
import { TransactionManager } from '../../electron/engine/transactions/transaction-manager';
import { TransactionWriter } from '../../electron/engine/transactions/transaction-writer';
import { TokenService, type WriteContext } from '../../electron/engine/vault/token-service';
import { UnitTokenStore } from '../../electron/engine/vault/token-store';
import { describePostgres } from '../support/postgres-suite';
import { type Replica, twoReplicas } from '../support/replicas';

/**
 * Deduplicated creates of one value raced from two replicas over one PostgreSQL database: whichever way they come
 * (a create, a tokenize batch, an intent's conversion), the value gets one token and every racer answers its id.
 */
const TENANT = 'tenant-1';
const ROUNDS = 10;
const sealer = new Sealer(randomBytes(32));
const replicas = twoReplicas('dedup_races');
const system = systemCaller(TENANT, { id: 'app-1', name: 'App' });
const application = { ...system.application, permissions: [...system.application.permissions, 'token-intent:create' as const] };
const caller: Caller = { ...system, application, policy: new AccessPolicy(application) };
const direct: WriteContext = { caller, cause: null };

const ofValue = query<string>('dedup races test: tokens of a type', 'SELECT id FROM tokens WHERE type = ?', { pluck: true });

/** One replica's token service, over its own runner, wired as the engine wires it. */
function servicesOf(replica: Replica) {
  const outbox = new EventOutbox(replica.units, TENANT);
  const store = new UnitTokenStore(replica.units, sealer, outbox);
  const tokens = new TokenService(store, sealer, new ExpressionEngine(), TENANT);
  tokens.useIntents(new TokenIntents(new IntentStore(replica.units, sealer), tokens, TENANT, () => 600, outbox));
  tokens.useWriter(new TransactionWriter(new TransactionManager({ units: replica.units, sealer }, store, 60), store, 'BT-TRANSACTION-ID'));
  return { tokens };
}

/** A number of its own for each round, so a round never finds the tokens of another. */
const ssn = (round: number) => `123-45-${String(6000 + round)}`;

/** Races `create` from four callers, two on each replica, and answers the ids they got and the tokens that exist. */
async function raced(create: (side: ReturnType<typeof servicesOf>, i: number) => Promise<string>) {
  const [a, b] = [servicesOf(replicas.a), servicesOf(replicas.b)];
  const ids = await Promise.all([a, b, a, b].map(create));
  const stored = await replicas.a.units.read(() => tx.all(ofValue, ['social_security_number']));
  await replicas.a.units.run(() => tx.run(query('dedup races test: clear', 'DELETE FROM tokens')));
  return { ids: new Set(ids), stored };
}

describePostgres('deduplicated creates of one value raced from two replicas over PostgreSQL', () => {
  it('creates: one token, every racer answered its id, every round', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { ids, stored } = await raced(async ({ tokens }) =>
        (await tokens.create({ type: 'social_security_number', data: ssn(round), deduplicate_token: true }, direct)).id,
      );
      expect(stored).toHaveLength(1);
      expect([...ids]).toEqual(stored);
    }
  });

  it('tokenize batches: one token, every racer answered its id, every round', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { ids, stored } = await raced(async ({ tokens }) => {
        const body = await tokens.tokenize({ type: 'social_security_number', data: ssn(round), deduplicate_token: true }, direct, (value) => value as never);
        return (body as { id: string }).id;
      });
      expect(stored).toHaveLength(1);
      expect([...ids]).toEqual(stored);
    }
  });

  it('intents of one value converted at once: one token, every round', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const now = Date.now();
      const intentIds = [0, 1, 2, 3].map((i) => `intent-${round}-${i}`);
      const intents = new IntentStore(replicas.a.units, sealer);
      for (const id of intentIds) {
        const intent = { id, type: 'social_security_number' as const, data: ssn(round), fingerprint: null, details: {}, created_by: 'app-1', created_at: new Date(now).toISOString(), expires_at: new Date(now + 60_000).toISOString() };
        await replicas.a.units.run(intents.inserting(intent));
      }
      const { ids, stored } = await raced(async ({ tokens }, i) => (await tokens.create({ token_intent_id: intentIds[i], deduplicate_token: true }, direct)).id);
      expect(stored).toHaveLength(1);
      expect([...ids]).toEqual(stored);
    }
  });
});
