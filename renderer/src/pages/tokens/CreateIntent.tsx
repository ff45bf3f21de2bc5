import { useState, type FormEvent } from 'react';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { formatDuration } from '../../components/format';
import { useSettingsStore } from '../../state/settings-store';
import { useTokenIntentsStore } from '../../state/token-intents-store';
import { useTokensStore } from '../../state/tokens-store';
import { DataFields, NEW_DATA, type DataDraft } from './DataFields';
import { DATA_FORMS } from './token-data';
import { errorsByField, type FieldErrors } from './token-form';
import { Notice } from './TokenDetail';
import { failureOf, writeAsPage } from './token-writes';

/**
 * A token intent as a browser would make one (POST /token-intents, type and data only), sent as the page's
 * application, which needs token-intent:create; the API's validation errors are shown on their field.
 */
export function CreateIntent() {
  const api = useWorkbenchApi();
  const show = useTokensStore((state) => state.show);
  const ttl = useSettingsStore((state) => state.value?.tokenIntents.tokenIntentTtlSeconds.value);
  const [draft, setDraft] = useState<DataDraft>(NEW_DATA);
  const [errors, setErrors] = useState<FieldErrors>({});
  const { busy, problem, run } = useEngineCall();
  useSettingsStore.useRefreshed();

  const create = (event: FormEvent) => {
    event.preventDefault();
    const made = DATA_FORMS[draft.type].data(draft.values);
    setErrors('error' in made ? { [made.field]: made.error } : {});
    if ('error' in made) return;
    void run(async () => {
      const result = await writeAsPage(api, { action: 'create_intent', intent: { type: draft.type, data: made.data } });
      if (result.problem) {
        setErrors(errorsByField(result.problem.errors));
        throw new Error(failureOf(result));
      }
      // Listed before it is opened, so the detail finds it.
      await useTokenIntentsStore.refresh(api);
      show({ kind: 'intent', id: result.token_ids[0] }, `Created token intent ${result.token_ids[0]}.`);
    });
  };
  return (
    <section className="panel token-side" aria-labelledby="create-intent-title">
      <Notice />
      <h2 id="create-intent-title">New token intent</h2>
      <p className="muted">
        What a browser sends with a public key before the back end converts it into a token. It lives {ttl ? formatDuration(ttl) : '…'} (Settings, Token intents); no
        route answers its data.
      </p>
      <form className="token-form" onSubmit={create} aria-label="New token intent">
        <DataFields draft={draft} onChange={setDraft} errors={errors} onTypeChange={() => setErrors({})} />
        <Alert message={problem} />
        <button type="submit" className="primary" disabled={busy}>
          Create intent
        </button>
      </form>
    </section>
  );
}
