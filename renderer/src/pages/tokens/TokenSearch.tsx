import { useState, type FormEvent } from 'react';
import { TOKEN_EXPIRY_FILTERS, type TokenExpiryFilter } from '../../../../shared/workbench/token-contract';
import { NO_FILTERS, useTokensStore, type TokenFilters } from '../../state/tokens-store';
import { TOKEN_TYPES, TYPE_LABELS } from './token-format';
import { useApplicationName } from '../../state/applications-store';
import { SHORT_ID, transactionLabel } from './TokenContext';

const EXPIRY_LABELS: Record<TokenExpiryFilter, string> = { expires: 'Expires', never: 'Never expires', within_day: 'Expires within a day' };

const EXAMPLE = 'type:card metadata.order:o-1 created_at:[2026-01-01 TO *]';

/**
 * The service's own search language in one box (run on Enter), and quick filters that apply at once. The engine's
 * error for a query it cannot read is shown under the box, with the column it names.
 */
export function TokenSearch() {
  const filters = useTokensStore((state) => state.filters);
  const filter = useTokensStore((state) => state.filter);
  const problem = useTokensStore((state) => state.problem);
  const transactions = useTokensStore((state) => state.transactions);
  const name = useApplicationName(SHORT_ID);
  // The text being typed; the list follows the query only once it is run.
  const [query, setQuery] = useState(filters.query);
  const [container, setContainer] = useState(filters.container);
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
    <form className="token-search" role="search" aria-label="Find tokens" onSubmit={submit}>
      <div className="query-line">
        <input
          type="search"
          aria-label="Search query"
          aria-describedby="token-search-help"
          aria-invalid={problem ? true : undefined}
          aria-errormessage={problem ? 'token-search-problem' : undefined}
          placeholder={EXAMPLE}
          spellCheck={false}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        <button type="submit">Search</button>
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
        The service's search language, as <code>POST /v2/tokens/search</code> takes it: <code>field:value</code> terms, AND, OR, NOT,
        ranges on dates.
      </p>
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
