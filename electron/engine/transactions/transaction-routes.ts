import type { Route } from '../server/route-types';
import type { TransactionManager } from './transaction-manager';

/** The BETA transaction endpoints (docs/api.md, Transactions); any valid key may call them. */
export function transactionRoutes(transactions: TransactionManager): Route[] {
  const end = (path: string, run: (id: string) => void): Route => ({
    method: 'POST',
    path,
    idempotent: true,
    handler: (ctx) => {
      const id = ctx.params.id as string;
      ctx.log.transactionId = id;
      run(id);
      return { status: 200 };
    },
  });
  return [
    {
      method: 'POST',
      path: '/transactions',
      idempotent: true,
      handler: (ctx) => {
        const created = transactions.create(ctx.caller);
        ctx.log.transactionId = created.id;
        return { status: 201, body: created };
      },
    },
    end('/transactions/:id/commit', (id) => transactions.commit(id)),
    end('/transactions/:id/rollback', (id) => transactions.rollback(id)),
  ];
}
