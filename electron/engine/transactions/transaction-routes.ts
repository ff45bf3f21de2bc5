import type { Route } from '../server/route-types';
import type { TransactionManager } from './transaction-manager';

/** The BETA transaction endpoints (docs/api.md, Transactions); any valid key may call them. */
export function transactionRoutes(transactions: TransactionManager): Route[] {
  const end = (path: string, run: (id: string) => void): Route => ({
    method: 'POST',
    path,
    idempotent: true,
    handler: (ctx) => {
      run(ctx.params.id as string);
      return { status: 200 };
    },
  });
  return [
    {
      method: 'POST',
      path: '/transactions',
      idempotent: true,
      handler: (ctx) => ({ status: 201, body: transactions.create(ctx.caller) }),
    },
    end('/transactions/:id/commit', (id) => transactions.commit(id)),
    end('/transactions/:id/rollback', (id) => transactions.rollback(id)),
  ];
}
