import { useState, type FormEvent } from 'react';
import { TOKENIZE_BATCH_MAX } from '../../../../shared/workbench/token-contract';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { messageOf } from '../../api/engine-call';
import { Alert } from '../../components/Alert';
import { useTokensStore } from '../../state/tokens-store';
import { CreateOptions, NO_CREATE_OPTIONS, requestFields, type CreateDraft } from './CreateOptions';
import { DataFields, NEW_DATA, type DataDraft } from './DataFields';
import { Field } from './FormFields';
import { DATA_FORMS } from './token-data';
import { errorsByField, type FieldErrors } from './token-form';
import { Notice } from './TokenDetail';
import { WriteTarget } from './TokenEditor';
import { failureOf, showCreated, writeAsPage } from './token-writes';

/** The most tokens one go creates: enough to fill a list and load a vault, in batches the API takes. */
const MOST_AT_ONCE = 1000;

/**
 * A form per token type, with generators of valid test data, every option the API takes, and many at once (in
 * batches of POST /tokenize) for filling a list or a load test. Sent as the page's application; the API's own
 * validation errors are shown on the field they concern. The data typed is cleared once it is in the vault.
 */
export function CreateToken() {
  const api = useWorkbenchApi();
  const show = useTokensStore((state) => state.show);
  const [draft, setDraft] = useState<DataDraft>(NEW_DATA);
  const [extras, setExtras] = useState<CreateDraft>(NO_CREATE_OPTIONS);
  const [count, setCount] = useState('1');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ done: number; of: number } | null>(null);
  const { type, values, choice } = draft;
  const form = DATA_FORMS[type];

  /** Each token's data: for many of a type with a generator, fresh test data each (ids and fingerprints differ). */
  const dataFor = (index: number): ReturnType<typeof form.data> => (index > 0 && form.generate ? form.data(form.generate(choice)) : form.data(values));

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (progress) return;
    const many = Number(count);
    const local: FieldErrors = {};
    if (!Number.isInteger(many) || many < 1 || many > MOST_AT_ONCE) local.count = `From 1 to ${MOST_AT_ONCE}`;
    if (many > 1 && extras.id.trim()) local.id = 'An id names one token: leave it blank to create many';
    const fields = requestFields(extras);
    if ('errors' in fields) Object.assign(local, fields.errors);
    const first = dataFor(0);
    if ('error' in first) local[first.field] = first.error;
    setErrors(local);
    setProblem(null);
    if (Object.keys(local).length > 0 || 'errors' in fields || 'error' in first) return;

    const request = (data: unknown) => ({ type, data, ...fields.fields });
    setProgress({ done: 0, of: many });
    try {
      if (many === 1) {
        const result = await writeAsPage(api, { action: 'create', token: request(first.data) });
        if (result.problem) {
          setErrors(errorsByField(result.problem.errors));
          return setProblem(failureOf(result));
        }
        return showCreated(result, 'Created token', 'Found an existing token with the same fingerprint');
      }
      for (let done = 0; done < many; done += TOKENIZE_BATCH_MAX) {
        const size = Math.min(TOKENIZE_BATCH_MAX, many - done);
        const tokens = Array.from({ length: size }, (_, i) => {
          const made = dataFor(done + i);
          return request('data' in made ? made.data : null);
        });
        const result = await writeAsPage(api, { action: 'create_many', tokens });
        if (result.problem) {
          setErrors(errorsByField(result.problem.errors));
          return setProblem(`${failureOf(result)} ${done} of ${many} were created before it.`);
        }
        setProgress({ done: done + size, of: many });
      }
      setDraft({ ...draft, values: {} });
      show({ kind: 'create' }, `Created ${many} tokens.`);
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setProgress(null);
    }
  };

  return (
    <section className="panel token-side" aria-labelledby="create-title">
      <Notice />
      <h2 id="create-title">New token</h2>
      <form className="token-form" onSubmit={(event) => void create(event)} aria-label="New token">
        <DataFields draft={draft} onChange={setDraft} errors={errors} onTypeChange={() => setErrors({})} />
        <CreateOptions draft={extras} onChange={setExtras} errors={errors} />
        <WriteTarget stagedIn={null} />
        <div className="create-line">
          <Field label="How many" value={count} onChange={setCount} error={errors.count} mono={false} hint={`1 to ${MOST_AT_ONCE}; many get fresh test data each.`} />
          <button type="submit" className="primary" disabled={progress !== null}>
            {Number(count) > 1 ? `Create ${count} tokens` : 'Create token'}
          </button>
        </div>
        {progress && progress.of > 1 && (
          <div className="progress-line">
            <progress value={progress.done} max={progress.of} aria-label="Creating tokens" />
            <span role="status">
              {progress.done} of {progress.of} created
            </span>
          </div>
        )}
        <Alert message={problem} />
      </form>
    </section>
  );
}
