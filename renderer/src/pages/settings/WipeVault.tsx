import { useState } from 'react';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { refreshApplicationDetails } from '../../state/application-details-store';
import { useEngineStore } from '../../state/engine-store';
import { useTransactionsStore } from '../../state/transactions-store';
import { checkWelcome } from '../../state/welcome-store';

const CONFIRMATION = 'wipe';

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
      setDone(`Wiped: ${wiped.tokens} tokens, ${wiped.transactions} transactions and ${wiped.applications} applications are gone.`);
      // Everything the pages hold of the old vault, read again.
      const [status, transactions] = await Promise.all([api.getStatus(), api.listTransactions()]);
      useEngineStore.getState().connected(status);
      useTransactionsStore.getState().select(null);
      useTransactionsStore.getState().loaded(transactions);
      await refreshApplicationDetails(api);
      await checkWelcome(api);
    });
  return (
    <div className="danger-item">
      <h3>Wipe the vault</h3>
      <p className="muted settings-hint">
        Deletes every token, transaction (open ones are rolled back), application and key, as if the vault were new; then makes its two first
        applications again, with new keys shown once. The proxy limits and the request history stay. There is no undo.
      </p>
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
      <p role="status" className="muted">
        {done}
      </p>
      <Alert message={problem} />
    </div>
  );
}
