import { useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { TOKEN_EXPIRY_FILTERS, type TokenExpiryFilter } from '../../../../shared/workbench/token-contract';
import { CARD_SEARCH_FIELDS, SERVICE_SEARCH_FIELDS, type SearchFieldInfo } from '../../../../shared/workbench/token-search-fields';
import { NO_FILTERS, useTokensStore, type TokenFilters } from '../../state/tokens-store';
import { TOKEN_TYPES, TYPE_LABELS } from './token-format';
import { useApplicationName } from '../../state/applications-store';
import { SHORT_ID, transactionLabel } from './TokenContext';

const EXPIRY_LABELS: Record<TokenExpiryFilter, string> = { expires: 'Expires', never: 'Never expires', within_day: 'Expires within a day' };

const PLACEHOLDER = '4242, visa, 12/2030, o-1 or field:value';

function FieldList({ fields }: { fields: readonly SearchFieldInfo[] }) {
  return (
    <dl>
      {fields.map(({ field, description, example }) => (
        <div key={field}>
          <dt>
            <code>{field}</code>
          </dt>
          <dd>
            {description} <code className="example">{example}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** What the box takes, field by field: the card fields are this page's own, the rest the service's language. */
function SearchFields({ id }: { id: string }) {
  return (
    // Focusable, so the keyboard scrolls it and Escape closes it from inside.
    <section className="search-fields" id={id} aria-label="Search fields" tabIndex={0}>
      <p>
        A word typed alone matches an id, a metadata value in any case, a value of the token's search indexes, and the
        card details it reads as. Words and terms are ANDed; <code>OR</code>, <code>NOT</code> and parentheses combine
        them (upper-case); quote a value with spaces: <code>"American Express"</code>.
      </p>
      <h3>Card fields (this page only)</h3>
      <FieldList fields={CARD_SEARCH_FIELDS} />
      <h3>
        The service's fields, as <code>POST /v2/tokens/search</code> takes them
      </h3>
      <FieldList fields={SERVICE_SEARCH_FIELDS} />
    </section>
  );
}

/**
 * One box (run on Enter) that finds cards by what their details show and tokens by their metadata, ids and the
 * service's own search language; quick filters apply at once. The engine's error for a query it cannot read is shown
 * under the box, with the column it names, and marks the field it is about.
 */
export function TokenSearch() {
  const filters = useTokensStore((state) => state.filters);
  const filter = useTokensStore((state) => state.filter);
  const problem = useTokensStore((state) => state.problem);
  const problemField = useTokensStore((state) => state.problemField);
  const transactions = useTokensStore((state) => state.transactions);
  const name = useApplicationName(SHORT_ID);
  // The text being typed; the list follows the query only once it is run.
  const [query, setQuery] = useState(filters.query);
  const [container, setContainer] = useState(filters.container);
  const [helpOpen, setHelpOpen] = useState(false);
  const helpButton = useRef<HTMLButtonElement>(null);
  const closeHelp = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !helpOpen) return;
    event.preventDefault();
    setHelpOpen(false);
    helpButton.current?.focus();
  };
  const invalid = (field: string) => (problem && problemField === field ? { 'aria-invalid': true, 'aria-errormessage': 'token-search-problem' } : {});
  const apply = (patch: Partial<TokenFilters>) => filter({ ...filters, query, container, ...patch });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    apply({});
  };
  const filtered = JSON.stringify({ ...filters, query, container }) !== JSON.stringify(NO_FILTERS);
  const clear = () => {
    setQuery('');
    setContainer('');
    filter(NO_FILTERS);
  };
  // A transaction not offered (older than the latest, or pruned a day after it ended) stays pickable while it is the filter.
  const forgotten = filters.createdIn && !transactions.some((t) => t.id === filters.createdIn) ? [filters.createdIn] : [];
  return (
    <form className="token-search" role="search" aria-label="Find tokens" onSubmit={submit} onKeyDown={closeHelp}>
      <div className="query-line">
        <input
          type="search"
          aria-label="Search query"
          aria-describedby="token-search-help"
          {...invalid('query')}
          placeholder={PLACEHOLDER}
          spellCheck={false}
          autoComplete="off"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <button type="submit">Search</button>
        <button type="button" ref={helpButton} aria-expanded={helpOpen} aria-controls="token-search-fields" onClick={() => setHelpOpen(!helpOpen)}>
          Search fields
        </button>
        {filtered && (
          <button type="button" onClick={clear}>
            Clear
          </button>
        )}
      </div>
      {problem && (
        <p className="problem query-problem" role="alert" id="token-search-problem">
          {problem}
        </p>
      )}
      <p className="muted help" id="token-search-help">
        Type a card's last four <code>4242</code>, BIN <code>424242</code>, brand <code>visa</code>, expiry{' '}
        <code>12/2030</code> or whole number, a metadata value or an id; or name fields: <code>card.last4:4242</code>{' '}
        <code>metadata.order:o-1</code> <code>type:card AND created_at:[2026-01-01 TO *]</code>.
      </p>
      {helpOpen && <SearchFields id="token-search-fields" />}
      <div className="quick-filters">
        <label>
          Type
          <select value={filters.type} onChange={(event) => apply({ type: event.target.value })}>
            <option value="">any</option>
            {TOKEN_TYPES.map((type) => (
              <option key={type} value={type}>
                {TYPE_LABELS[type]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Container
          <input
            type="text"
            placeholder="/pci/"
            spellCheck={false}
            {...invalid('container')}
            value={container}
            onChange={(event) => setContainer(event.target.value)}
            onBlur={() => container !== filters.container && apply({})}
          />
        </label>
        <label>
          Expiry
          <select value={filters.expiry} onChange={(event) => apply({ expiry: event.target.value as TokenExpiryFilter | '' })}>
            <option value="">any</option>
            {TOKEN_EXPIRY_FILTERS.map((expiry) => (
              <option key={expiry} value={expiry}>
                {EXPIRY_LABELS[expiry]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Created in
          <select value={filters.createdIn} onChange={(event) => apply({ createdIn: event.target.value })}>
            <option value="">any</option>
            {transactions.map((transaction) => (
              <option key={transaction.id} value={transaction.id}>
                transaction {transactionLabel(transaction, name)}
              </option>
            ))}
            {forgotten.map((id) => (
              <option key={id} value={id}>
                transaction {id.slice(0, 8)}
              </option>
            ))}
          </select>
        </label>
      </div>
    </form>
  );
}
