import { useState } from 'react';
import { useEngineCall } from '../../api/engine-call';
import { formatCount, plural } from '../../components/format';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { refreshApplicationDetails } from '../../state/application-details-store';
import { useClientKeysStore, useSessionsStore } from '../../state/client-access-stores';
import { useEngineStore } from '../../state/engine-store';
import { loadTransactions, useTransactionsStore } from '../../state/transactions-store';
import { checkWelcome } from '../../state/welcome-store';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ActionOutcome } from './SettingFields';

const CONFIRMATION = 'wipe';

const WHAT_GOES =
  "Deletes every token, transaction (open ones are rolled back), application and key, as if the vault were new; then makes its two first applications again, with new keys shown once. The proxy limits, the request history, saved requests and their secrets, and the Composer's remote targets (with their keys) stay. There is no undo.";

/** What a wipe would remove, as the engine last counted it: the status's counts, and the transactions' from their list. */
function VaultHolds() {
  const status = useEngineStore((state) => state.status);
  const counts = useTransactionsStore((state) => state.counts);
  if (!status || !counts) return null;
  return (
    <p className="settings-hint">
      The vault holds {plural(status.tokenCount, 'token', 'tokens')}, {plural(counts.kept, 'transaction', 'transactions')} ({formatCount(counts.open)}{' '}
      open) and {plural(status.applicationCount, 'application', 'applications')}.
    </p>
  );
}

/** Empties the vault as if new, once the word is typed; the new vault's keys then show in the welcome view. */
export function WipeVault() {
  const api = useWorkbenchApi();
  const [asking, setAsking] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const { busy, problem, run } = useEngineCall();
  const wipe = () =>
    run(async () => {
      const wiped = await api.wipeVault({ confirm: CONFIRMATION });
      setAsking(false);
      setDone(
        `Wiped: ${plural(wiped.tokens, 'token', 'tokens')}, ${plural(wiped.transactions, 'transaction', 'transactions')} and ${plural(wiped.applications, 'application', 'applications')} are gone.`,
      );
      // Everything the pages hold of the old vault, read again.
      useTransactionsStore.getState().select(null);
      const [status] = await Promise.all([api.getStatus(), loadTransactions(api)]);
      useEngineStore.getState().connected(status);
      await Promise.all([refreshApplicationDetails(api), useClientKeysStore.refresh(api), useSessionsStore.refresh(api)]);
      await checkWelcome(api);
    });
  return (
    <div className="danger-item">
      <h3>Wipe the vault</h3>
      <p className="muted settings-hint">{WHAT_GOES}</p>
      <VaultHolds />
      <button
        type="button"
        className="danger"
        onClick={() => {
          setDone(null);
          setAsking(true);
        }}
      >
        Wipe the vault…
      </button>
      {asking && (
        <ConfirmDialog
          title="Wipe the vault?"
          confirm="Wipe the vault"
          keep="Keep the vault"
          word={CONFIRMATION}
          busy={busy}
          problem={problem}
          onConfirm={() => void wipe()}
          onClose={() => setAsking(false)}
        >
          <p>{WHAT_GOES}</p>
          <VaultHolds />
        </ConfirmDialog>
      )}
      <ActionOutcome done={done} problem={null} />
    </div>
  );
}
