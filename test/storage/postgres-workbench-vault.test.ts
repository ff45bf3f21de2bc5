import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { systemCaller } from '../../electron/engine/access/system-caller';
import { EventOutbox } from '../../electron/engine/events/event-outbox';
import { ExpressionEngine } from '../../electron/engine/expressions';
import { Sealer } from '../../electron/engine/storage/crypto';
import type { AnyUnitRunner, SqlDialect } from '../../electron/engine/storage/unit';
import { TransactionManager } from '../../electron/engine/transactions/transaction-manager';
import { UnitTransactionStore } from '../../electron/engine/transactions/transaction-store';
import { TransactionWriter } from '../../electron/engine/transactions/transaction-writer';
import { TokenQueries } from '../../electron/engine/vault/token-queries';
import { TokenService, type WriteContext } from '../../electron/engine/vault/token-service';
import { UnitTokenStore } from '../../electron/engine/vault/token-store';
import type { WorkbenchVault } from '../../electron/engine/workbench/acting-as';
import { revealToken, tokenDetail } from '../../electron/engine/workbench/token-access';
import { searchTokens } from '../../electron/engine/workbench/token-search';
import { tokenSearchSchema } from '../../shared/workbench/token-contract';
import { bothDatabases, SIDES } from '../support/both-databases';
import { describePostgres } from '../support/postgres-suite';

const TENANT = 'tenant-1';
const sealer = new Sealer(randomBytes(32));
const both = bothDatabases('workbench_vault');
const caller = systemCaller(TENANT, { id: 'app-1', name: 'App' });

/** The Tokens page's vault over a runner, wired as the engine wires it, acting as the one application. */
function vaultOver(units: AnyUnitRunner, dialect: SqlDialect): WorkbenchVault {
  const outbox = new EventOutbox(units, TENANT);
  const store = new UnitTokenStore(units, sealer, outbox);
  const tokens = new TokenService(store, sealer, new ExpressionEngine(), TENANT);
  const transactions = new TransactionManager(new UnitTransactionStore(units, sealer), store, 60);
  tokens.useWriter(new TransactionWriter(transactions, store, 'BT-TRANSACTION-ID'));
  return { tokens, queries: new TokenQueries(store, tokens, dialect), transactions, callerFor: (id) => (id === caller.application.id ? caller : undefined) };
}

describePostgres("the workbench's Tokens page on SQLite and PostgreSQL", () => {
  describe.each(SIDES)('over %s', (side) => {
    it('shows a token staged in an open transaction inside it, in the first page of the list, and reveals it', async () => {
      const vault = vaultOver(both.runners[side], side === 'SQLite' ? 'sqlite' : 'postgres');
      await vault.tokens.create({ id: 'kept', type: 'token', data: 'committed' }, { caller, cause: null });
      const open = await vault.transactions.create(caller);
      const inside: WriteContext = { caller, transactionId: open.id, cause: null };
      await vault.tokens.create({ id: 'staged', type: 'token', data: 'inside' }, inside);

      const detail = await tokenDetail(vault, { application_id: 'app-1', token_id: 'staged', transaction_id: open.id });
      expect(detail).toMatchObject({ token: { id: 'staged' }, staged: { transaction_id: open.id, operation: 'create' } });
      await expect(tokenDetail(vault, { application_id: 'app-1', token_id: 'staged' })).rejects.toMatchObject({ status: 404 });
      expect(await revealToken(vault, { application_id: 'app-1', token_id: 'staged', transaction_id: open.id })).toEqual({ data: 'inside' });

      const page = await searchTokens(vault, tokenSearchSchema.parse({ application_id: 'app-1' }));
      expect(page.tokens.map((token) => token.id)).toEqual(['kept']);
      expect(page.staged.map(({ token, staged }) => [token.id, staged.operation])).toEqual([['staged', 'create']]);
      const created = await searchTokens(vault, tokenSearchSchema.parse({ application_id: 'app-1', transaction_id: open.id }));
      expect(created).toMatchObject({ total: 0, staged: [{ token: { id: 'staged' } }] });

      await vault.transactions.commit(open.id);
      expect((await searchTokens(vault, tokenSearchSchema.parse({ application_id: 'app-1' }))).tokens.map((token) => token.id).sort()).toEqual(['kept', 'staged']);
    });
  });
});
