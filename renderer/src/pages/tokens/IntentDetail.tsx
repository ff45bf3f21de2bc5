import { useState, type FormEvent } from 'react';
import type { TokenIntentView } from '../../../../shared/workbench/token-intent-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { useNow } from '../../components/now';
import { useApplicationName } from '../../state/applications-store';
import { useTokenIntentsStore } from '../../state/token-intents-store';
import { useTokensStore } from '../../state/tokens-store';
import { CardFact } from './CardFact';
import { CreateOptions, NO_CREATE_OPTIONS, requestFields, type CreateDraft } from './CreateOptions';
import { IntentTimeLeft } from './intent-parts';
import { actingApplication } from './token-list-actions';
import { errorsByField, type FieldErrors } from './token-form';
import { fullTime, TYPE_LABELS } from './token-format';
import { SHORT_ID } from './TokenContext';
import { Notice } from './TokenDetail';
import { WriteTarget } from './TokenEditor';
import { failureOf, showCreated, writeAsPage, written } from './token-writes';

/** What the API shows of an intent: its type, card or bank summary, fingerprint, creator and expiry; never its data. */
function IntentFacts({ intent }: { intent: TokenIntentView }) {
  const name = useApplicationName(SHORT_ID);
  const { card, bank } = intent;
  return (
    <dl className="facts token-facts">
      <dt>Type</dt>
      <dd>
        {intent.type} <span className="muted">({TYPE_LABELS[intent.type] ?? 'unknown'})</span>
      </dd>
      {card && <CardFact card={card} />}
      {bank && (
        <>
          <dt>Bank account</dt>
          <dd>
            routing {bank.routing_number} · account last four {bank.account_number_last4}
          </dd>
        </>
      )}
      <dt>Fingerprint</dt>
      <dd>
        {intent.fingerprint ?? '–'}
        <div className="muted">the type's default, which the token it becomes has too</div>
      </dd>
      <dt>Created</dt>
      <dd>
        {fullTime(intent.created_at)} by {name(intent.created_by)}
      </dd>
      <dt>Expires</dt>
      <dd>
        {fullTime(intent.expires_at)} (<IntentTimeLeft intent={intent} />)
      </dd>
    </dl>
  );
}

/** Converts the intent into a token as the page's application (POST /tokens with token_intent_id), with every create field but the data. */
function ConvertIntent({ intent }: { intent: TokenIntentView }) {
  const api = useWorkbenchApi();
  const [draft, setDraft] = useState<CreateDraft>(NO_CREATE_OPTIONS);
  const [errors, setErrors] = useState<FieldErrors>({});
  const { busy, problem, run } = useEngineCall();
  const convert = (event: FormEvent) => {
    event.preventDefault();
    const fields = requestFields(draft);
    setErrors('errors' in fields ? fields.errors : {});
    if ('errors' in fields) return;
    void run(async () => {
      const result = await writeAsPage(api, { action: 'create', token: { token_intent_id: intent.id, ...fields.fields } });
      if (result.problem) {
        setErrors(errorsByField(result.problem.errors));
        throw new Error(failureOf(result));
      }
      showCreated(result, `Converted token intent ${intent.id} into token`, `Converted token intent ${intent.id} into the existing token`);
    });
  };
  return (
    <form className="token-form" onSubmit={convert} aria-label="Convert into a token">
      <p className="muted">
        The token takes the intent's type and data (without a card's CVC) and the fields below; the intent is gone once converted. Deduplicated, an existing
        token of the same fingerprint in the same container is updated with the data instead.
      </p>
      <CreateOptions draft={draft} onChange={setDraft} errors={errors} open />
      <WriteTarget stagedIn={null} />
      <Alert message={problem} />
      <button type="submit" className="primary" disabled={busy}>
        Convert into a token
      </button>
    </form>
  );
}

/** Deletes the intent as the page's application (DELETE /token-intents/{id}), after asking. */
function DeleteIntent({ intent }: { intent: TokenIntentView }) {
  const api = useWorkbenchApi();
  const [asking, setAsking] = useState(false);
  const { busy, problem, run } = useEngineCall();
  const show = useTokensStore((state) => state.show);
  const remove = () =>
    run(async () => {
      await written(writeAsPage(api, { action: 'delete_intent', intent_id: intent.id }));
      setAsking(false);
      show({ kind: 'none' }, `Deleted token intent ${intent.id}.`);
      void useTokenIntentsStore.refresh(api);
    });
  return (
    <>
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        Delete intent
      </button>
      {asking && (
        <ConfirmDialog
          title={`Delete token intent ${intent.id.slice(0, SHORT_ID)}?`}
          confirm="Delete intent"
          busy={busy}
          problem={problem}
          onConfirm={() => void remove()}
          onClose={() => setAsking(false)}
        >
          <p>
            Its data is gone for good: nothing can convert it or read it in an expression afterwards. Sent as {actingApplication()?.name ?? 'the page’s application'}, which needs{' '}
            <code>token-intent:delete</code>.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** One live intent beside the list: what the API shows of it, the expression that reads it, its conversion and its deletion. */
export function IntentDetail({ id }: { id: string }) {
  const listed = useTokenIntentsStore((state) => state.value?.intents.find((intent) => intent.id === id));
  const now = useNow();
  const intent = listed && Date.parse(listed.expires_at) > now ? listed : undefined;
  const expression = `{{ token_intent: ${id} | json: '$.data' }}`;
  return (
    <section className="panel token-side" aria-labelledby="intent-title">
      <Notice />
      <h2 id="intent-title">
        Token intent <span className="mono">{id}</span>
      </h2>
      {intent ? (
        <>
          <p className="token-badges">
            <span className="badge">{intent.type}</span>
            <span className="muted">its data stays in the engine: no route answers it</span>
            <CopyButton text={id} label="Copy the intent id" caption="Copy id" />
          </p>
          <IntentFacts intent={intent} />
          <p className="muted">
            A proxy or a reactor reads it with <code>{expression}</code> <CopyButton text={expression} label="Copy the expression" caption="Copy" />
          </p>
          <h3>Convert into a token</h3>
          <ConvertIntent key={id} intent={intent} />
          <h3>Delete</h3>
          <DeleteIntent intent={intent} />
        </>
      ) : (
        <p className="muted">This intent is no longer live: it expired, was converted or was deleted.</p>
      )}
    </section>
  );
}
