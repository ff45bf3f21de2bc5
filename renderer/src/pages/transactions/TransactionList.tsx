import { useRef, type ReactNode } from 'react';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { formatCount, plural } from '../../components/format';
import { applicationToUse, useApplicationsStore } from '../../state/applications-store';
import { countShown, loadOlderTransactions, MAX_LISTED_TRANSACTIONS, showTransactions, useTransactionsStore, type TransactionsShown } from '../../state/transactions-store';
import { createTransaction } from './transaction-actions';
import { ApplicationName, STATE_LABELS, TimeLeft } from './transaction-parts';

const SHOWN: Record<TransactionsShown, string> = { all: 'All states', ...STATE_LABELS, ended: 'ended (any)' };

/** Who the page acts as, and the button that opens a transaction as that application. */
function CreateBar() {
  const api = useWorkbenchApi();
  const applications = useApplicationsStore((state) => state.value);
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

/** How many the engine keeps: in all and open, or those the filter lets through of them all. */
function Counts() {
  const counts = useTransactionsStore((state) => state.counts);
  const shown = useTransactionsStore((state) => state.shown);
  if (!counts) return null;
  return (
    <span className="muted">
      {shown === 'all' ? `${plural(counts.kept, 'transaction', 'transactions')} kept · ${formatCount(counts.open)} open` : `${formatCount(countShown(counts, shown))} of ${formatCount(counts.kept)}`}
    </span>
  );
}

/** Pages back through what the engine keeps under the filter, from the oldest listed; says when there is no more. */
function LoadOlder() {
  const api = useWorkbenchApi();
  const listed = useTransactionsStore((state) => state.transactions?.length ?? 0);
  const next = useTransactionsStore((state) => state.next);
  const full = useTransactionsStore((state) => state.full);
  const matching = useTransactionsStore((state) => state.counts && countShown(state.counts, state.shown));
  const { busy, problem, run } = useEngineCall();
  const end = useRef<HTMLParagraphElement>(null);
  if (listed === 0) return null;
  if (full) {
    return (
      <p className="muted tx-paging">
        The list keeps the latest {formatCount(MAX_LISTED_TRANSACTIONS)} transactions; the engine keeps the older ones. Choose a state to narrow it.
      </p>
    );
  }
  if (next === null) {
    return (
      <p className="muted tx-paging" tabIndex={-1} ref={end}>
        No older transactions.
      </p>
    );
  }
  const loadOlder = () =>
    void run(async () => {
      await loadOlderTransactions(api);
      // The last page: the button goes, and focus moves to the words that say so rather than to the page's top.
      if (useTransactionsStore.getState().next === null) requestAnimationFrame(() => end.current?.focus());
    });
  return (
    <div className="tx-paging">
      <button type="button" onClick={loadOlder} disabled={busy}>
        Load older transactions
      </button>
      <span className="muted">
        Showing {formatCount(listed)}
        {matching !== null && ` of ${formatCount(matching)}`}
      </span>
      <Alert message={problem} />
    </div>
  );
}

/** The kept transactions, newest first, a page at a time under a filter the engine applies, updated live; choosing one shows it beside the list. */
export function TransactionList({ expiry }: { expiry: ReactNode }) {
  const api = useWorkbenchApi();
  const transactions = useTransactionsStore((state) => state.transactions);
  const shown = useTransactionsStore((state) => state.shown);
  const none = useTransactionsStore((state) => state.counts?.kept === 0);
  const selectedId = useTransactionsStore((state) => state.selectedId);
  const select = useTransactionsStore((state) => state.select);
  const { problem, run } = useEngineCall();
  return (
    <section className="panel tx-list" aria-labelledby="transactions-title" aria-busy={transactions === null}>
      <h2 id="transactions-title">Transactions</h2>
      <CreateBar />
      <p className="muted tx-expiry">{expiry}</p>
      <div className="tx-filter">
        <select aria-label="Show" value={shown} onChange={(event) => void run(() => showTransactions(api, event.target.value as TransactionsShown))}>
          {Object.entries(SHOWN).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <Counts />
      </div>
      <Alert message={problem} />
      {transactions === null ? (
        <p className="muted">Listing transactions…</p>
      ) : transactions.length === 0 ? (
        <p className="muted">
          {none
            ? 'No transactions yet. Create one here, or send POST /transactions from a client: it appears at once.'
            : shown === 'ended'
              ? 'No transaction has ended.'
              : `No transaction is ${SHOWN[shown]}.`}
        </p>
      ) : (
        // A narrow pane scrolls the table sideways rather than cutting off its last column.
        <div className="tx-table-scroll">
          <table className="data-table tx-table">
            <thead>
              <tr>
                <th scope="col">Transaction</th>
                <th scope="col">State</th>
                <th scope="col">Created by</th>
                <th scope="col" className="tx-created">
                  Created
                </th>
                <th scope="col" className="number">
                  Time left
                </th>
              </tr>
            </thead>
            <tbody>
              {transactions.map((transaction) => (
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
                  <td className="time tx-created">{new Date(transaction.created_at).toLocaleTimeString()}</td>
                  <td className="number">
                    <TimeLeft transaction={transaction} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadOlder />
    </section>
  );
}
