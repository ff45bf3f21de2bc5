import type { TransactionView } from '../../../../shared/workbench/transaction-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { CopyButton } from '../../components/CopyButton';
import { applicationToUse, useApplicationsStore } from '../../state/applications-store';
import { useComposerStore } from '../../state/composer-store';
import { useHeaderPrefix } from '../../state/engine-store';
import { useTransactionsStore } from '../../state/transactions-store';
import { endTransaction } from './transaction-actions';
import { ApplicationName, STATE_LABELS, TimeLeft } from './transaction-parts';


const LOCK_MEANING = {
  reserved: 'id reserved: created inside, so no other write may take it',
  locked: 'locked: changed or deleted inside, so other writes to it get 409',
} as const;
const EFFECT_MEANING = { created: 'appears', updated: 'changes to', deleted: 'disappears' } as const;

/** Token data as the engine sent it (already masked), in one line. */
function MaskedData({ data }: { data: unknown }) {
  if (data === null || data === undefined) return <span className="muted">—</span>;
  // A masked string stays on one line; an object wraps where it must.
  return typeof data === 'string' ? <code className="tx-data tx-data-text">{data}</code> : <code className="tx-data">{JSON.stringify(data)}</code>;
}

/** Commit and roll back, as the application the page acts as; what the vault answered when it refused. */
function EndActions({ transaction }: { transaction: TransactionView }) {
  const api = useWorkbenchApi();
  const applications = useApplicationsStore((state) => state.value);
  const chosen = useTransactionsStore((state) => state.applicationId);
  const { busy, problem, run } = useEngineCall();
  const application = applicationToUse(applications, chosen);
  const end = (action: 'commit' | 'rollback') => application && void run(() => endTransaction(api, application.id, transaction.id, action));
  return (
    <>
      {transaction.state === 'open' && (
        <div className="tx-actions">
          <button type="button" className="primary" disabled={busy || !application} onClick={() => end('commit')}>
            Commit
          </button>
          <button type="button" className="danger" disabled={busy || !application} onClick={() => end('rollback')}>
            Roll back
          </button>
          {application && <span className="muted">as “{application.name}”</span>}
        </div>
      )}
      <Alert message={problem} />
    </>
  );
}

/** The header that enlists a request: to copy, or to set on the Composer's request. */
function HeaderLine({ id }: { id: string }) {
  const prefix = useHeaderPrefix();
  const edit = useComposerStore((state) => state.edit);
  const line = `${prefix}-TRANSACTION-ID: ${id}`;
  const useInComposer = () => edit({ service: { ...useComposerStore.getState().draft.service, transaction: id } });
  return (
    <div className="tx-header-line">
      <code>{line}</code>
      <CopyButton text={line} label="Copy the header line" />
      {/* A link to the Composer: it opens like any page, after the click has set the header there. */}
      <a className="button-link small" href="#/composer" onClick={useInComposer}>
        Use in Composer
      </a>
    </div>
  );
}

/** One transaction: its state and time, what it enlisted and by whom, the locks it holds, and what a commit would show. */
export function TransactionDetail() {
  const transaction = useTransactionsStore((state) => state.selected);
  if (!transaction) {
    return (
      <section className="panel" aria-labelledby="transaction-title">
        <h2 id="transaction-title">Transaction</h2>
        <p className="muted">Select a transaction to see what it holds, or create one.</p>
      </section>
    );
  }
  const open = transaction.state === 'open';
  return (
    <section className="panel tx-detail" aria-labelledby="transaction-title">
      <h2 id="transaction-title">
        Transaction <span className="mono">{transaction.id}</span>
      </h2>
      <p className="tx-status">
        <span className={`tx-state tx-state-${transaction.state}`}>{STATE_LABELS[transaction.state]}</span>
        {open && (
          <span>
            expires in <TimeLeft transaction={transaction} />
          </span>
        )}
      </p>
      <dl className="facts">
        <dt>Created by</dt>
        <dd>
          <ApplicationName id={transaction.created_by} />
        </dd>
        <dt>Created</dt>
        <dd>{new Date(transaction.created_at).toLocaleString()}</dd>
        <dt>{open ? 'Expires' : 'Was to expire'}</dt>
        <dd>{new Date(transaction.expires_at).toLocaleString()}</dd>
        {transaction.ended_at && (
          <>
            <dt>Ended</dt>
            <dd>{new Date(transaction.ended_at).toLocaleString()}</dd>
          </>
        )}
      </dl>
      <HeaderLine id={transaction.id} />
      <EndActions transaction={transaction} />

      <h3>Operations</h3>
      {transaction.operations.length === 0 ? (
        <p className="muted">None yet: token writes sent with the header above enlist here.</p>
      ) : (
        <table className="data-table tx-operations" aria-label="Operations">
          <thead>
            <tr>
              <th scope="col" className="number">
                #
              </th>
              <th scope="col">Operation</th>
              <th scope="col">Token</th>
              <th scope="col">By</th>
              <th scope="col">At</th>
              <th scope="col">Data, masked</th>
            </tr>
          </thead>
          <tbody>
            {transaction.operations.map((operation, i) => (
              <tr key={i}>
                <td className="number">{i + 1}</td>
                <td>{operation.operation}</td>
                <td className="mono" title={operation.token_id}>
                  {operation.token_id}
                </td>
                <td>
                  <ApplicationName id={operation.application_id} />
                </td>
                <td className="time">{new Date(operation.enlisted_at).toLocaleTimeString()}</td>
                <td>{open ? <MaskedData data={operation.data} /> : <span className="muted">not kept once ended</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {open && (
        <>
          <h3>Locks held</h3>
          {transaction.locks.length === 0 ? (
            <p className="muted">None: it holds a token once it writes to it.</p>
          ) : (
            <ul className="tx-locks" aria-label="Locks held">
              {transaction.locks.map((lock) => (
                <li key={lock.token_id}>
                  <span className="mono">{lock.token_id}</span> <span className="muted">{LOCK_MEANING[lock.kind]}</span>
                </li>
              ))}
            </ul>
          )}

          <h3>What a commit would make visible</h3>
          {transaction.on_commit.length === 0 ? (
            <p className="muted">Nothing: other requests would see the vault as it is.</p>
          ) : (
            <ul className="tx-effects" aria-label="What a commit would make visible">
              {transaction.on_commit.map((effect) => (
                <li key={effect.token_id}>
                  <span className="mono">{effect.token_id}</span> {EFFECT_MEANING[effect.effect]}
                  {effect.effect !== 'deleted' && (
                    <>
                      {' '}
                      <MaskedData data={effect.data} />
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
