import { Field, OptionFields } from './FormFields';
import { lines, NO_OPTIONS, parseMask, words, type FieldErrors, type TokenOptions } from './token-form';

/** The fields under Options: it opens when the API names one of them. */
const OPTION_FIELDS = ['id', 'containers', 'metadata', 'mask', 'search_indexes', 'fingerprint_expression', 'expires_at'];

/** What a new token may carry besides its data (or the intent it converts), as typed. */
export interface CreateDraft {
  options: TokenOptions;
  id: string;
  fingerprintExpression: string;
  deduplicate: boolean;
}

export const NO_CREATE_OPTIONS: CreateDraft = { options: NO_OPTIONS, id: '', fingerprintExpression: '', deduplicate: false };

/** The create request's fields besides its data, as the API takes them; blank fields are left to the API's defaults. */
export function requestFields(draft: CreateDraft): { fields: Record<string, unknown> } | { errors: FieldErrors } {
  const { options } = draft;
  const mask = parseMask(options.mask);
  if ('error' in mask) return { errors: { mask: mask.error } };
  const metadata = Object.fromEntries(options.metadata.filter(([key]) => key !== ''));
  return {
    fields: {
      ...(draft.id.trim() && { id: draft.id.trim() }),
      ...(words(options.containers).length > 0 && { containers: words(options.containers) }),
      ...(Object.keys(metadata).length > 0 && { metadata }),
      ...(options.mask.trim() && { mask: mask.mask }),
      ...(lines(options.searchIndexes).length > 0 && { search_indexes: lines(options.searchIndexes) }),
      ...(draft.fingerprintExpression.trim() && { fingerprint_expression: draft.fingerprintExpression.trim() }),
      ...(draft.deduplicate && { deduplicate_token: true }),
      ...(options.expiresAt.trim() && { expires_at: options.expiresAt.trim() }),
    },
  };
}

/**
 * Every create field but the data, under Options: a new token's, and a token intent's conversion's (which takes the
 * same ones). Open from the start where they are the point (`open`), or once the API names one of them.
 */
export function CreateOptions({ draft, onChange, errors, open = false }: { draft: CreateDraft; onChange: (draft: CreateDraft) => void; errors: FieldErrors; open?: boolean }) {
  return (
    <details className="options" open={open || OPTION_FIELDS.some((field) => errors[field]) || undefined}>
      <summary>Options: id, containers, metadata, mask, search indexes, fingerprint, expiry</summary>
      <div className="options-body">
        <Field label="Id" value={draft.id} onChange={(id) => onChange({ ...draft, id })} error={errors.id} hint="Your own id for the token (an alias); blank: a UUID." />
        <OptionFields options={draft.options} onChange={(options) => onChange({ ...draft, options })} errors={errors} maskHint="JSON of templates over data; blank: the type's default mask." />
        <Field
          label="Fingerprint expression"
          value={draft.fingerprintExpression}
          onChange={(fingerprintExpression) => onChange({ ...draft, fingerprintExpression })}
          error={errors.fingerprint_expression}
          hint="Blank: the type's default."
        />
        <label className="check">
          <input type="checkbox" checked={draft.deduplicate} onChange={(event) => onChange({ ...draft, deduplicate: event.target.checked })} />
          Deduplicate: answer the existing token of the same type and fingerprint instead of a new one
        </label>
      </div>
    </details>
  );
}
