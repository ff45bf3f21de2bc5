import { formatDuration } from '../../components/format';
import { SplitPane } from '../../components/SplitPane';
import { useApplicationsStore } from '../../state/applications-store';
import { useSettingsStore } from '../../state/settings-store';
import { TransactionDetail } from './TransactionDetail';
import { TransactionList } from './TransactionList';
import './transactions.css';

/** The choice Tokenbench made where the hosted service's BETA documentation stops, in one line, with its setting. */
function ExpiryLine() {
  useSettingsStore.useRefreshed();
  const ttl = useSettingsStore((state) => state.value?.transactionTtlSeconds);
  return (
    <>
      A transaction lasts {ttl ? formatDuration(ttl) : '…'} (<code>serve --transaction-ttl</code>); then Tokenbench rolls it back, and a commit
      after that answers 409.
    </>
  );
}

/** The BETA transactions: every one the engine keeps, live, beside the one selected. */
export function TransactionsPage() {
  useApplicationsStore.useRefreshed();
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
