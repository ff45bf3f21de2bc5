import { useState, type FormEvent } from 'react';
import { TOKENIZE_BATCH_MAX } from '../../../../shared/workbench/token-contract';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { messageOf } from '../../api/engine-call';
import { Alert } from '../../components/Alert';
import { useTokensStore } from '../../state/tokens-store';
import { Field, OptionFields } from './FormFields';
import { BRAND_OPTIONS, dataFieldOf, DATA_FORMS, type GeneratorChoice } from './token-data';
import { errorsByField, lines, NO_OPTIONS, parseMask, words, type FieldErrors, type TokenOptions } from './token-form';
import { TOKEN_TYPES, TYPE_LABELS } from './token-format';
import { Notice } from './TokenDetail';
import { WriteTarget } from './TokenEditor';
import { failureOf, writeAsPage } from './token-writes';
import { writingTransaction } from './token-list-actions';

/** The fields under Options: it opens when the API names one of them. */
const OPTION_FIELDS = ['id', 'containers', 'metadata', 'mask', 'search_indexes', 'fingerprint_expression', 'expires_at'];

/** The most tokens one go creates: enough to fill a list and load a vault, in batches the API takes. */
const MOST_AT_ONCE = 1000;

interface Extras {
  id: string;
  fingerprintExpression: string;
  deduplicate: boolean;
}

/** The create request's fields besides its data, as the API takes them; blank fields are left to the API's defaults. */
function requestFields(options: TokenOptions, extras: Extras): { fields: Record<string, unknown> } | { errors: FieldErrors } {
  const mask = parseMask(options.mask);
  if ('error' in mask) return { errors: { mask: mask.error } };
  const metadata = Object.fromEntries(options.metadata.filter(([key]) => key !== ''));
  return {
    fields: {
      ...(extras.id.trim() && { id: extras.id.trim() }),
      ...(words(options.containers).length > 0 && { containers: words(options.containers) }),
      ...(Object.keys(metadata).length > 0 && { metadata }),
      ...(options.mask.trim() && { mask: mask.mask }),
      ...(lines(options.searchIndexes).length > 0 && { search_indexes: lines(options.searchIndexes) }),
      ...(extras.fingerprintExpression.trim() && { fingerprint_expression: extras.fingerprintExpression.trim() }),
      ...(extras.deduplicate && { deduplicate_token: true }),
      ...(options.expiresAt.trim() && { expires_at: options.expiresAt.trim() }),
    },
  };
}

/**
 * A form per token type, with generators of valid test data, every option the API takes, and many at once (in
 * batches of POST /tokenize) for filling a list or a load test. Sent as the page's application; the API's own
 * validation errors are shown on the field they concern. The data typed is cleared once it is in the vault.
 */
export function CreateToken() {
  const api = useWorkbenchApi();
  const show = useTokensStore((state) => state.show);
  const [type, setType] = useState('card');
  const [values, setValues] = useState<Record<string, string>>({});
  const [choice, setChoice] = useState<GeneratorChoice>({ brand: 'visa', ssnRange: 'never-issued' });
  const [options, setOptions] = useState<TokenOptions>(NO_OPTIONS);
  const [extras, setExtras] = useState<Extras>({ id: '', fingerprintExpression: '', deduplicate: false });
  const [count, setCount] = useState('1');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [progress, setProgress] = useState<{ done: number; of: number } | null>(null);
  const form = DATA_FORMS[type];

  const generate = () => {
    if (form.generate) setValues(form.generate(choice));
  };

  /** Each token's data: for many of a type with a generator, fresh test data each (ids and fingerprints differ). */
  const dataFor = (index: number): ReturnType<typeof form.data> => (index > 0 && form.generate ? form.data(form.generate(choice)) : form.data(values));

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (progress) return;
    const many = Number(count);
    const local: FieldErrors = {};
    if (!Number.isInteger(many) || many < 1 || many > MOST_AT_ONCE) local.count = `From 1 to ${MOST_AT_ONCE}`;
    if (many > 1 && extras.id.trim()) local.id = 'An id names one token: leave it blank to create many';
    const fields = requestFields(options, extras);
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
        const found = result.deduplicated ? 'Found an existing token with the same fingerprint' : 'Created token';
        const inside = result.deduplicated ? undefined : writingTransaction();
        const where = inside ? `, staged in transaction ${inside.slice(0, 8)} until it commits` : '';
        return show({ kind: 'detail', id: result.token_ids[0], stagedIn: inside ?? null }, `${found} ${result.token_ids[0]}${where}.`);
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
      setValues({});
      show({ kind: 'create' }, `Created ${many} tokens.`);
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setProgress(null);
    }
  };

  const set = (key: string, value: string) => setValues({ ...values, [key]: value });
  return (
    <section className="panel token-side" aria-labelledby="create-title">
      <Notice />
      <h2 id="create-title">New token</h2>
      <form className="token-form" onSubmit={(event) => void create(event)} aria-label="New token">
        <label className="field">
          Type
          <select
            value={type}
            onChange={(event) => {
              setType(event.target.value);
              setValues({});
              setErrors({});
            }}
          >
            {TOKEN_TYPES.map((option) => (
              <option key={option} value={option}>
                {TYPE_LABELS[option]} ({option})
              </option>
            ))}
          </select>
        </label>
        {form.generate && (
          <div className="generator">
            {(type === 'card' || type === 'card_number') && (
              <label>
                Brand
                <select value={choice.brand} onChange={(event) => setChoice({ ...choice, brand: event.target.value as GeneratorChoice['brand'] })}>
                  {BRAND_OPTIONS.map(({ brand, label }) => (
                    <option key={brand} value={brand}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
            )}
            {type === 'social_security_number' && (
              <label>
                Range
                <select value={choice.ssnRange} onChange={(event) => setChoice({ ...choice, ssnRange: event.target.value as GeneratorChoice['ssnRange'] })}>
                  <option value="never-issued">never issued (900-999)</option>
                  <option value="example">set aside for examples (987-65-432x)</option>
                </select>
              </label>
            )}
            <button type="button" onClick={generate}>
              Generate test data
            </button>
          </div>
        )}
        <div className="data-fields">
          {form.fields.map(({ key, label, placeholder }) => (
            <Field
              key={`${type}.${key}`}
              label={label}
              value={values[key] ?? ''}
              onChange={(value) => set(key, value)}
              placeholder={placeholder}
              multiline={type === 'token'}
              error={errors[dataFieldOf(type, key)] ?? (key === 'number' ? errors.data : undefined)}
            />
          ))}
        </div>
        <details className="options" open={OPTION_FIELDS.some((field) => errors[field]) || undefined}>
          <summary>Options: id, containers, metadata, mask, search indexes, fingerprint, expiry</summary>
          <div className="options-body">
            <Field label="Id" value={extras.id} onChange={(id) => setExtras({ ...extras, id })} error={errors.id} hint="Your own id for the token (an alias); blank: a UUID." />
            <OptionFields options={options} onChange={setOptions} errors={errors} maskHint="JSON of templates over data; blank: the type's default mask." />
            <Field
              label="Fingerprint expression"
              value={extras.fingerprintExpression}
              onChange={(fingerprintExpression) => setExtras({ ...extras, fingerprintExpression })}
              error={errors.fingerprint_expression}
              hint="Blank: the type's default."
            />
            <label className="check">
              <input type="checkbox" checked={extras.deduplicate} onChange={(event) => setExtras({ ...extras, deduplicate: event.target.checked })} />
              Deduplicate: answer the existing token of the same type and fingerprint instead of a new one
            </label>
          </div>
        </details>
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
