import type { TransactionView } from '../../../../shared/workbench/transaction-contract';
import { applicationToUse, useApplicationName, useApplicationsStore } from '../../state/applications-store';
import { useEngineStore } from '../../state/engine-store';
import { useTokensStore } from '../../state/tokens-store';
import { Alert } from '../../components/Alert';
import { ApplicationSelect } from '../../components/ApplicationSelect';

/** A transaction as a picker names it: its id's start, who opened it, and its time left or its end. */
export function transactionLabel(transaction: TransactionView, applicationName: (id: string) => string): string {
  const minutes = Math.max(1, Math.round(transaction.time_left_ms / 60_000));
  const state = transaction.state === 'open' ? `${minutes} min left` : transaction.state.replace('_', ' ');
  return `${transaction.id.slice(0, SHORT_ID)} · by ${applicationName(transaction.created_by)} · ${state}`;
}

/** Where the Tokens page names an application it no longer lists: by its id's start, as transactions are named. */
export const SHORT_ID = 8;

/** Who the page acts as (its access rules decide what the list shows), and the open transaction its writes go into. */
export function TokenContext() {
  const applications = useApplicationsStore((state) => state.value);
  const problem = useApplicationsStore((state) => state.problem);
  const chosen = useTokensStore((state) => state.applicationId);
  const choose = useTokensStore((state) => state.chooseApplication);
  const transactionId = useTokensStore((state) => state.transactionId);
  const chooseTransaction = useTokensStore((state) => state.chooseTransaction);
  const transactions = useTokensStore((state) => state.transactions);
  const live = useEngineStore((state) => state.connection === 'live');
  const name = useApplicationName(SHORT_ID);
  const application = applicationToUse(applications, chosen);
  if (!live && !applications) return <p className="muted">The applications to act as are listed once the engine is connected.</p>;
  if (problem) return <Alert message={`Could not list the applications: ${problem}`} />;
  if (!applications) return <p className="muted">Listing applications…</p>;
  const open = transactions.filter((transaction) => transaction.state === 'open');
  // A transaction that has ended since it was picked no longer takes writes.
  const writingIn = open.find((transaction) => transaction.id === transactionId);
  return (
    <div className="token-context">
      <ApplicationSelect label="Act as" applications={applications} value={application?.id ?? ''} onChange={choose} />
      <label>
        Write
        <select value={writingIn?.id ?? ''} onChange={(event) => chooseTransaction(event.target.value || null)}>
          <option value="">at once (no transaction)</option>
          {open.map((transaction) => (
            <option key={transaction.id} value={transaction.id}>
              inside transaction {transactionLabel(transaction, name)}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
