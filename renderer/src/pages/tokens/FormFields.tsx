import { useId, type ReactNode } from 'react';
import type { FieldErrors, TokenOptions } from './token-form';

interface FieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** The API's (or the form's) message for this field. */
  error?: string;
  hint?: ReactNode;
  placeholder?: string;
  /** Several lines (a mask, search indexes, JSON data). */
  multiline?: boolean;
  mono?: boolean;
}

/** A labelled input with its hint, and the message the API gave for it, tied to it for screen readers. */
export function Field({ label, value, onChange, error, hint, placeholder, multiline, mono = true }: FieldProps) {
  const id = useId();
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    value,
    placeholder,
    spellCheck: false,
    className: mono ? 'mono' : undefined,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': described,
  };
  return (
    <div className={error ? 'field invalid' : 'field'}>
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea {...common} rows={3} onChange={(event) => onChange(event.target.value)} />
      ) : (
        <input type="text" {...common} onChange={(event) => onChange(event.target.value)} />
      )}
      {hint && (
        <small className="muted" id={`${id}-hint`}>
          {hint}
        </small>
      )}
      {error && (
        <small className="field-error" id={`${id}-error`}>
          {error}
        </small>
      )}
    </div>
  );
}

/** Metadata as rows of key and value; a blank row at the end takes the next one. */
function MetadataRows({ rows, onChange, error }: { rows: [string, string][]; onChange: (rows: [string, string][]) => void; error?: string }) {
  const shown: [string, string][] = [...rows, ['', '']];
  const change = (at: number, row: [string, string]) =>
    onChange(shown.map((current, i) => (i === at ? row : current)).filter((current, i) => i < rows.length || current[0] !== '' || current[1] !== ''));
  return (
    <fieldset className={error ? 'field metadata invalid' : 'field metadata'}>
      <legend>Metadata</legend>
      {shown.map(([key, value], i) => {
        const which = i === rows.length ? 'new metadata entry' : `metadata ${key || i + 1}`;
        return (
          <div className="metadata-row" key={i}>
            <input type="text" className="mono" aria-label={`Key of ${which}`} spellCheck={false} value={key} onChange={(e) => change(i, [e.target.value, value])} />
            <input type="text" className="mono" aria-label={`Value of ${which}`} spellCheck={false} value={value} onChange={(e) => change(i, [key, e.target.value])} />
            {i < rows.length && (
              <button type="button" className="small" aria-label={`Remove ${which}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
                ×
              </button>
            )}
          </div>
        );
      })}
      {error && <small className="field-error">{error}</small>}
    </fieldset>
  );
}

/** The fields a token carries besides its data, as create and edit both offer them. */
export function OptionFields({
  options,
  onChange,
  errors,
  maskHint,
}: {
  options: TokenOptions;
  onChange: (options: TokenOptions) => void;
  errors: FieldErrors;
  maskHint: string;
}) {
  const set = (patch: Partial<TokenOptions>) => onChange({ ...options, ...patch });
  return (
    <>
      <MetadataRows rows={options.metadata} onChange={(metadata) => set({ metadata })} error={errors.metadata} />
      <Field
        label="Containers"
        value={options.containers}
        onChange={(containers) => set({ containers })}
        error={errors.containers}
        placeholder="/pci/high/"
        hint="Separated by spaces; blank: the type's default."
      />
      <Field label="Mask" value={options.mask} onChange={(mask) => set({ mask })} error={errors.mask} multiline hint={maskHint} />
      <Field
        label="Search indexes"
        value={options.searchIndexes}
        onChange={(searchIndexes) => set({ searchIndexes })}
        error={errors.search_indexes}
        multiline
        hint={
          <>
            One template per line, e.g. <code>{'{{ data | last4 }}'}</code>: what <code>data:</code> searches match.
          </>
        }
      />
      <Field
        label="Expires at"
        value={options.expiresAt}
        onChange={(expiresAt) => set({ expiresAt })}
        error={errors.expires_at}
        placeholder="2030-01-31T12:00:00Z"
        hint="ISO 8601; blank: never."
      />
    </>
  );
}
