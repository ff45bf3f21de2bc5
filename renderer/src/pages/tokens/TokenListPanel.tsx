import { formatCount, plural } from '../../components/format';
import { useTokensStore } from '../../state/tokens-store';
import { TokenContext } from './TokenContext';
import { TokenList } from './TokenList';
import { TokenSearch } from './TokenSearch';

/** How many tokens match, how many are read so far, and what open transactions hold beside them. */
function ListSummary() {
  const total = useTokensStore((state) => state.total);
  const listed = useTokensStore((state) => state.tokens.length);
  const staged = useTokensStore((state) => state.staged.length);
  const unsearched = useTokensStore((state) => state.stagedUnsearched);
  const loading = useTokensStore((state) => state.loading);
  const problem = useTokensStore((state) => state.problem);
  const unindexed = useTokensStore((state) => state.unindexed);
  const searched = useTokensStore((state) => state.filters.query !== '');
  if (problem) return null;
  const parts = total === null ? [loading ? 'Reading…' : ''] : [plural(total, 'token', 'tokens')];
  if (total !== null && listed < total) parts.push(`${formatCount(listed)} read so far`);
  if (staged > 0) parts.push(`${plural(staged, 'write', 'writes')} staged in open transactions, not yet in the vault`);
  if (unsearched > 0) parts.push(`${plural(unsearched, 'staged write', 'staged writes')} not searched (a query runs in the vault)`);
  if (searched && unindexed > 0) {
    parts.push(`${plural(unindexed, 'older token', 'older tokens')} not yet indexed by card details and metadata: search again in a moment`);
  }
  return (
    <p className="token-summary" role="status" aria-label="Tokens found">
      {parts.join(' · ')}
    </p>
  );
}

/** The list side of the page: who it acts as, the search, and the tokens. */
export function TokenListPanel() {
  const show = useTokensStore((state) => state.show);
  const total = useTokensStore((state) => state.total);
  const staged = useTokensStore((state) => state.staged.length);
  const problem = useTokensStore((state) => state.problem);
  return (
    <section className="panel token-list" aria-labelledby="tokens-title">
      <div className="tokens-head">
        <h2 id="tokens-title">Tokens</h2>
        <button type="button" className="primary" onClick={() => show({ kind: 'create' })}>
          New token
        </button>
      </div>
      <TokenContext />
      <TokenSearch />
      <ListSummary />
      {total === 0 && staged === 0 && !problem ? (
        <p className="muted token-empty">No token matches. Create one with New token, or change the search.</p>
      ) : (
        !problem && <TokenList />
      )}
    </section>
  );
}
