import { useState } from 'react';
import { useEngineCall } from '../../api/engine-call';
import { formatCount, plural } from '../../components/format';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { refreshApplicationDetails } from '../../state/application-details-store';
import { useEngineStore } from '../../state/engine-store';
import { loadTransactions, useTransactionsStore } from '../../state/transactions-store';
import { checkWelcome } from '../../state/welcome-store';
import { ActionOutcome } from './SettingFields';

const CONFIRMATION = 'wipe';

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
  const [typed, setTyped] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const { busy, problem, run } = useEngineCall();
  const wipe = () =>
    run(async () => {
      const wiped = await api.wipeVault({ confirm: CONFIRMATION });
      setTyped('');
      setDone(
        `Wiped: ${plural(wiped.tokens, 'token', 'tokens')}, ${plural(wiped.transactions, 'transaction', 'transactions')} and ${plural(wiped.applications, 'application', 'applications')} are gone.`,
      );
      // Everything the pages hold of the old vault, read again.
      useTransactionsStore.getState().select(null);
      const [status] = await Promise.all([api.getStatus(), loadTransactions(api)]);
      useEngineStore.getState().connected(status);
      await refreshApplicationDetails(api);
      await checkWelcome(api);
    });
  return (
    <div className="danger-item">
      <h3>Wipe the vault</h3>
      <p className="muted settings-hint">
        Deletes every token, transaction (open ones are rolled back), application and key, as if the vault were new; then makes its two first
        applications again, with new keys shown once. The proxy limits, the request history, saved requests and their secrets, and the
        Composer's remote targets (with their keys) stay. There is no undo.
      </p>
      <VaultHolds />
      <form
        className="settings-inline"
        onSubmit={(event) => {
          event.preventDefault();
          void wipe();
        }}
      >
        <label className="danger-choice">
          Type <code>{CONFIRMATION}</code> to confirm
          <input type="text" spellCheck={false} autoComplete="off" value={typed} onChange={(event) => setTyped(event.target.value)} />
        </label>
        <button type="submit" className="danger" disabled={busy || typed !== CONFIRMATION}>
          Wipe the vault
        </button>
      </form>
      <ActionOutcome done={done} problem={problem} />
    </div>
  );
}
