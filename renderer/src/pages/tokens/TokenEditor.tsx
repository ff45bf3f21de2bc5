import { useState, type FormEvent } from 'react';
import type { TokenView } from '../../../../shared/workbench/token-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { useTokensStore } from '../../state/tokens-store';
import { OptionFields } from './FormFields';
import { errorsByField, optionsOf, patchOf, type FieldErrors } from './token-form';
import { failureOf, writeAsPage, written } from './token-writes';

/** Where a write goes, in words: at once, or inside which transaction. */
export function WriteTarget({ stagedIn }: { stagedIn: string | null }) {
  const transactionId = useTokensStore((state) => state.transactionId);
  const transactions = useTokensStore((state) => state.transactions);
  const inside = stagedIn ?? transactions.find((t) => t.id === transactionId && t.state === 'open')?.id;
  return <p className="muted write-target">{inside ? `Inside transaction ${inside.slice(0, 8)}: nobody else sees it until the commit.` : 'Applied at once.'}</p>;
}

/** Changes metadata, containers, mask, search indexes and expiry with one merge patch, as PATCH /tokens/{id} takes it. */
export function TokenEditor({ token, stagedIn, onSaved }: { token: TokenView; stagedIn: string | null; onSaved: () => void }) {
  const api = useWorkbenchApi();
  const before = optionsOf(token);
  const [options, setOptions] = useState(before);
  const [errors, setErrors] = useState<FieldErrors>({});
  const { busy, problem, run } = useEngineCall();
  const show = useTokensStore((state) => state.show);

  const save = (event: FormEvent) => {
    event.preventDefault();
    const { patch, errors: local } = patchOf(before, options);
    setErrors(local);
    if (Object.keys(local).length > 0) return;
    if (Object.keys(patch).length === 0) return setErrors({ form: 'Nothing changed.' });
    void run(async () => {
      const result = await writeAsPage(api, { action: 'update', token_id: token.id, patch }, stagedIn);
      if (result.problem) {
        setErrors(errorsByField(result.problem.errors));
        throw new Error(failureOf(result));
      }
      show({ kind: 'detail', id: token.id, stagedIn }, `Saved the changes to token ${token.id}.`);
      onSaved();
    });
  };
  return (
    <form className="token-form" onSubmit={save} aria-label="Change the token">
      <OptionFields options={options} onChange={setOptions} errors={errors} maskHint="JSON; blank: no mask, so masked reads get no data." />
      <WriteTarget stagedIn={stagedIn} />
      <Alert message={problem ?? errors.form ?? null} />
      <button type="submit" className="primary" disabled={busy}>
        Save changes
      </button>
    </form>
  );
}

/** Deletes the token after the user confirms it; inside the page's transaction when it writes in one. */
export function DeleteToken({ token, stagedIn }: { token: TokenView; stagedIn: string | null }) {
  const api = useWorkbenchApi();
  const [confirming, setConfirming] = useState(false);
  const { busy, problem, run } = useEngineCall();
  const show = useTokensStore((state) => state.show);
  const remove = () =>
    run(async () => {
      await written(writeAsPage(api, { action: 'delete', token_id: token.id }, stagedIn));
      show({ kind: 'none' }, `Deleted token ${token.id}.`);
    });
  if (!confirming) {
    return (
      <button type="button" className="danger" onClick={() => setConfirming(true)}>
        Delete…
      </button>
    );
  }
  return (
    <div className="confirm" role="alertdialog" aria-label="Delete the token" aria-describedby="delete-question">
      <p id="delete-question">
        Delete token <code>{token.id}</code>? Its data cannot be brought back.
      </p>
      <WriteTarget stagedIn={stagedIn} />
      <button type="button" className="danger" disabled={busy} onClick={() => void remove()}>
        Delete token
      </button>
      <button type="button" onClick={() => setConfirming(false)} autoFocus>
        Keep it
      </button>
      <Alert message={problem} />
    </div>
  );
}
