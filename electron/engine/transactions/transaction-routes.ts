import type { Route } from '../server/route-types';
import type { TransactionManager } from './transaction-manager';
import type { TransactionUnits } from './transaction-store';

/** The BETA transaction endpoints (docs/api.md, Transactions); any valid key may call them, over either database. */
export function transactionRoutes(transactions: TransactionManager<TransactionUnits>): Route[] {
  const end = (path: string, run: (id: string) => Promise<void>): Route => ({
    method: 'POST',
    path,
    idempotent: true,
    handler: async (ctx) => {
      const id = ctx.params.id as string;
      ctx.log.transactionId = id;
      await run(id);
      return { status: 200 };
    },
  });
  return [
    {
      method: 'POST',
      path: '/transactions',
      idempotent: true,
      handler: async (ctx) => {
        const created = await transactions.create(ctx.caller);
        ctx.log.transactionId = created.id;
        return { status: 201, body: created };
      },
    },
    end('/transactions/:id/commit', (id) => transactions.commit(id)),
    end('/transactions/:id/rollback', (id) => transactions.rollback(id)),
  ];
}
