import { formatCount, plural } from '../../components/format';
import { useNow } from '../../components/now';
import { Tabs } from '../../components/Tabs';
import { useTokenIntentsStore } from '../../state/token-intents-store';
import { useTokensStore, type TokenListTab } from '../../state/tokens-store';
import { liveIntents } from './intent-parts';
import { IntentList } from './IntentList';
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

/** The tokens the search finds, with the search itself. */
function TokensTab() {
  const total = useTokensStore((state) => state.total);
  const staged = useTokensStore((state) => state.staged.length);
  const problem = useTokensStore((state) => state.problem);
  return (
    <>
      <TokenSearch />
      <ListSummary />
      {total === 0 && staged === 0 && !problem ? (
        <p className="muted token-empty">No token matches. Create one with New token, or change the search.</p>
      ) : (
        !problem && <TokenList />
      )}
    </>
  );
}

/** How many intents are live, beside the tab's name; nothing until they are read. */
function IntentCount() {
  const list = useTokenIntentsStore((state) => state.value);
  const now = useNow();
  if (!list) return null;
  return <span className="tab-count">{formatCount(liveIntents(list, now).length)}</span>;
}

/** The list side of the page: who it acts as, then the tokens (with their search) or the live token intents. */
export function TokenListPanel() {
  const show = useTokensStore((state) => state.show);
  const tab = useTokensStore((state) => state.listTab);
  const showList = useTokensStore((state) => state.showList);
  return (
    <section className="panel token-list" aria-labelledby="tokens-title">
      <div className="tokens-head">
        <h2 id="tokens-title">Tokens</h2>
        <button type="button" className="primary" onClick={() => show(tab === 'intents' ? { kind: 'create-intent' } : { kind: 'create' })}>
          {tab === 'intents' ? 'New intent' : 'New token'}
        </button>
      </div>
      <TokenContext />
      <Tabs
        label="Tokens or token intents"
        selected={tab}
        onSelect={(id) => showList(id as TokenListTab)}
        tabs={[
          { id: 'tokens', label: 'Tokens', panel: () => <TokensTab /> },
          {
            id: 'intents',
            label: (
              <>
                Intents
                <IntentCount />
              </>
            ),
            panel: () => <IntentList />,
          },
        ]}
      />
    </section>
  );
}
