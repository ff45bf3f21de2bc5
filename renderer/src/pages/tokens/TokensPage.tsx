import { SplitPane } from '../../components/SplitPane';
import { useApplicationList } from '../../state/applications-store';
import { useTokensStore } from '../../state/tokens-store';
import { CreateToken } from './CreateToken';
import { Notice, TokenDetail } from './TokenDetail';
import { TokenListPanel } from './TokenListPanel';
import { useTokenList } from './token-list-actions';
import './tokens.css';

/** Beside the list: the token opened, the form for new ones, or a word on what to do. */
function SidePanel() {
  const panel = useTokensStore((state) => state.panel);
  if (panel.kind === 'create') return <CreateToken />;
  if (panel.kind === 'detail') return <TokenDetail key={`${panel.id} ${panel.stagedIn ?? ''}`} id={panel.id} stagedIn={panel.stagedIn} />;
  return (
    <section className="panel token-side" aria-labelledby="token-side-title">
      <Notice />
      <h2 id="token-side-title">Token</h2>
      <p className="muted">Open a token from the list (↑ ↓ and Enter) to see it, or make new ones with New token.</p>
    </section>
  );
}

/** Find, inspect, create and change the vault's tokens as an application, without writing a request. */
export function TokensPage() {
  useApplicationList();
  useTokenList();
  return (
    <SplitPane label="Resize the token list" storageKey="tokenbench.tokens.split" initial={0.62} start={<TokenListPanel />} end={<SidePanel />} />
  );
}
