import { Field } from './FormFields';
import { BRAND_OPTIONS, dataFieldOf, DATA_FORMS, type GeneratorChoice } from './token-data';
import type { FieldErrors } from './token-form';
import { TOKEN_TYPES, TYPE_LABELS } from './token-format';

/** A type and its data as a form holds them: text as typed, and what the generator is asked for. */
export interface DataDraft {
  type: string;
  values: Record<string, string>;
  choice: GeneratorChoice;
}

export const NEW_DATA: DataDraft = { type: 'card', values: {}, choice: { brand: 'visa', ssnRange: 'never-issued' } };

/** The type, a generator of valid test data, and the type's data fields, with the API's message on each: what a token and a token intent both take. */
export function DataFields({ draft, onChange, errors, onTypeChange }: { draft: DataDraft; onChange: (draft: DataDraft) => void; errors: FieldErrors; onTypeChange: () => void }) {
  const { type, values, choice } = draft;
  const form = DATA_FORMS[type];
  return (
    <>
      <label className="field">
        Type
        <select
          value={type}
          onChange={(event) => {
            onChange({ ...draft, type: event.target.value, values: {} });
            onTypeChange();
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
              <select value={choice.brand} onChange={(event) => onChange({ ...draft, choice: { ...choice, brand: event.target.value as GeneratorChoice['brand'] } })}>
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
              <select value={choice.ssnRange} onChange={(event) => onChange({ ...draft, choice: { ...choice, ssnRange: event.target.value as GeneratorChoice['ssnRange'] } })}>
                <option value="never-issued">never issued (900-999)</option>
                <option value="example">set aside for examples (987-65-432x)</option>
              </select>
            </label>
          )}
          <button type="button" onClick={() => form.generate && onChange({ ...draft, values: form.generate(choice) })}>
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
            onChange={(value) => onChange({ ...draft, values: { ...values, [key]: value } })}
            placeholder={placeholder}
            multiline={type === 'token'}
            error={errors[dataFieldOf(type, key)] ?? (key === 'number' ? errors.data : undefined)}
          />
        ))}
      </div>
    </>
  );
}
