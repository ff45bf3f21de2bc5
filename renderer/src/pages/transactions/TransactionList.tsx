import { useState, type ReactNode } from 'react';
import type { TransactionView } from '../../../../shared/workbench/contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { applicationToUse, useApplicationsStore } from '../../state/applications-store';
import { useTransactionsStore } from '../../state/transactions-store';
import { createTransaction } from './transaction-actions';
import { ApplicationName, STATE_LABELS, TimeLeft } from './transaction-parts';

type StateFilter = 'all' | TransactionView['state'];
const FILTERS: Record<StateFilter, string> = { all: 'All states', ...STATE_LABELS };

/** Who the page acts as, and the button that opens a transaction as that application. */
function CreateBar() {
  const api = useWorkbenchApi();
  const applications = useApplicationsStore((state) => state.applications);
  const chosen = useTransactionsStore((state) => state.applicationId);
  const actAs = useTransactionsStore((state) => state.actAs);
  const { busy, problem, run } = useEngineCall();
  const application = applicationToUse(applications, chosen);
  return (
    <>
      <div className="tx-toolbar">
        <button
          type="button"
          className="primary"
          disabled={busy || !application}
          onClick={() => application && void run(() => createTransaction(api, application.id))}
        >
          New transaction
        </button>
        <label>
          as
          <select value={application?.id ?? ''} onChange={(event) => actAs(event.target.value)} disabled={!applications}>
            {(applications ?? []).map((app) => (
              <option key={app.id} value={app.id}>
                {app.name} · {app.type}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Alert message={problem} />
    </>
  );
}

/** Every transaction the engine keeps, newest first, updated live; choosing one shows it beside the list. */
export function TransactionList({ expiry }: { expiry: ReactNode }) {
  const transactions = useTransactionsStore((state) => state.transactions);
  const selectedId = useTransactionsStore((state) => state.selectedId);
  const select = useTransactionsStore((state) => state.select);
  const [filter, setFilter] = useState<StateFilter>('all');
  const shown = (transactions ?? []).filter((transaction) => filter === 'all' || transaction.state === filter);
  return (
    <section className="panel" aria-labelledby="transactions-title">
      <h2 id="transactions-title">Transactions</h2>
      <CreateBar />
      <p className="muted tx-expiry">{expiry}</p>
      <div className="tx-filter">
        <select aria-label="Show" value={filter} onChange={(event) => setFilter(event.target.value as StateFilter)}>
          {Object.entries(FILTERS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        {filter !== 'all' && transactions && (
          <span className="muted">
            {shown.length} of {transactions.length}
          </span>
        )}
      </div>
      {transactions === null ? (
        <p className="muted">Listing transactions…</p>
      ) : transactions.length === 0 ? (
        <p className="muted">No transactions yet. Create one here, or send POST /transactions from a client: it appears at once.</p>
      ) : shown.length === 0 ? (
        <p className="muted">No transaction is {STATE_LABELS[filter as TransactionView['state']]}.</p>
      ) : (
        <table className="data-table tx-table">
          <thead>
            <tr>
              <th scope="col">Transaction</th>
              <th scope="col">State</th>
              <th scope="col">Created by</th>
              <th scope="col">Created</th>
              <th scope="col" className="number">
                Time left
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((transaction) => (
              <tr key={transaction.id} aria-selected={transaction.id === selectedId} className={transaction.id === selectedId ? 'selected' : undefined}>
                <td className="mono">
                  <button type="button" className="link" title={transaction.id} onClick={() => select(transaction.id)}>
                    {transaction.id.slice(0, 8)}
                  </button>
                </td>
                <td>
                  <span className={`tx-state tx-state-${transaction.state}`}>{STATE_LABELS[transaction.state]}</span>
                </td>
                <td>
                  <ApplicationName id={transaction.created_by} />
                </td>
                <td className="time">{new Date(transaction.created_at).toLocaleTimeString()}</td>
                <td className="number">
                  <TimeLeft transaction={transaction} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
