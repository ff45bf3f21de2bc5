import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { systemCaller } from '../../electron/engine/access/system-caller';
import { EventOutbox, SYSTEM_CAUSE } from '../../electron/engine/events/event-outbox';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { Sealer } from '../../electron/engine/storage/crypto';
import { TransactionManager } from '../../electron/engine/transactions/transaction-manager';
import { TransactionWriter } from '../../electron/engine/transactions/transaction-writer';
import { TokenService, type WriteContext } from '../../electron/engine/vault/token-service';
import { UnitTokenStore } from '../../electron/engine/vault/token-store';
import { describePostgres } from '../support/postgres-suite';
import { type Replica, twoReplicas } from '../support/replicas';

/**
 * Merge patches of one token raced from two replicas over one PostgreSQL database: each builds on the token it read,
 * so without a check at the write one would land over another's and lose it. Every patch must be in the token after.
 */
const TENANT = 'tenant-1';
const ROUNDS = 10;
const sealer = new Sealer(randomBytes(32));
const replicas = twoReplicas('update_races');
const direct: WriteContext = { caller: systemCaller(TENANT, { id: 'app-1', name: 'App' }), cause: null };

/** One replica's token service, over its own runner, wired as the engine wires it. */
function tokensOf(replica: Replica): TokenService<Replica['units']> {
  const store = new UnitTokenStore(replica.units, sealer, new EventOutbox(replica.units, TENANT));
  const tokens = new TokenService(store, sealer, new ExpressionEngine(), TENANT);
  tokens.useWriter(new TransactionWriter(new TransactionManager({ units: replica.units, sealer }, store, 60), store, 'BT-TRANSACTION-ID'));
  return tokens;
}

describePostgres('merge patches of one token raced from two replicas over PostgreSQL', () => {
  it('keeps every patch: four racers, two on each replica, each adding its own metadata key, every round', async () => {
    const [a, b] = [tokensOf(replicas.a), tokensOf(replicas.b)];
    for (let round = 0; round < ROUNDS; round++) {
      const { id } = await a.create({ type: 'token', data: `round ${round}`, metadata: { round: String(round) } }, direct);
      await Promise.all([a, b, a, b].map((tokens, i) => tokens.update(id, { metadata: { [`racer${i}`]: 'here' } }, direct)));
      const stored = await tokensOf(replicas.a).read(id, direct.caller, SYSTEM_CAUSE);
      expect(stored.metadata).toEqual({ round: String(round), racer0: 'here', racer1: 'here', racer2: 'here', racer3: 'here' });
    }
  });
});
