import { formatDuration } from '../../components/format';
import { SplitPane } from '../../components/SplitPane';
import { useApplicationList } from '../../state/applications-store';
import { useSettings } from '../../state/settings-store';
import { TransactionDetail } from './TransactionDetail';
import { TransactionList } from './TransactionList';
import './transactions.css';

/** The choice Tokenbench made where the hosted service's BETA documentation stops, in one line, with its setting. */
function ExpiryLine() {
  const ttl = useSettings()?.transactionTtlSeconds;
  return (
    <>
      A transaction lasts {ttl ? formatDuration(ttl) : '…'} (<code>serve --transaction-ttl</code>); then Tokenbench rolls it back, and a commit
      after that answers 409.
    </>
  );
}

/** The BETA transactions: every one the engine keeps, live, beside the one selected. */
export function TransactionsPage() {
  useApplicationList();
  return (
    <SplitPane
      label="Resize the transaction list"
      storageKey="tokenbench.transactions.split"
      initial={0.45}
      start={<TransactionList expiry={<ExpiryLine />} />}
      end={<TransactionDetail />}
    />
  );
}
