import { useEffect, useRef } from 'react';
import { SplitPane } from '../../components/SplitPane';
import { useApplicationsStore } from '../../state/applications-store';
import { useTokensStore } from '../../state/tokens-store';
import { useTokenIntentsStore } from '../../state/token-intents-store';
import { CreateIntent } from './CreateIntent';
import { CreateToken } from './CreateToken';
import { IntentDetail } from './IntentDetail';
import { Notice, TokenDetail } from './TokenDetail';
import { TokenListPanel } from './TokenListPanel';
import { useTokenList } from './token-list-actions';
import './tokens.css';

/** Beside the list: the token opened, the form for new ones, or a word on what to do. */
function SidePanel() {
  const panel = useTokensStore((state) => state.panel);
  if (panel.kind === 'create') return <CreateToken />;
  if (panel.kind === 'create-intent') return <CreateIntent />;
  if (panel.kind === 'intent') return <IntentDetail key={panel.id} id={panel.id} />;
  if (panel.kind === 'detail') return <TokenDetail key={`${panel.id} ${panel.stagedIn ?? ''}`} id={panel.id} stagedIn={panel.stagedIn} />;
  return (
    <section className="panel token-side" aria-labelledby="token-side-title">
      <Notice />
      <h2 id="token-side-title">Token</h2>
      <p className="muted">Open a token from the list (↑ ↓ and Enter) to see it, or make new ones with New token; token intents are under Intents.</p>
    </section>
  );
}

/** In a narrow window the side sits below the list: the token opened, or the form, is scrolled up into view. */
function SideInView() {
  const panel = useTokensStore((state) => state.panel);
  const slot = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const side = slot.current?.firstElementChild;
    if (panel.kind !== 'none' && side && side.getBoundingClientRect().top > window.innerHeight / 2) side.scrollIntoView({ block: 'start' });
  }, [panel]);
  return (
    <div className="token-side-slot" ref={slot}>
      <SidePanel />
    </div>
  );
}

/** Find, inspect, create and change the vault's tokens, and its live token intents, as an application, without writing a request. */
export function TokensPage() {
  useApplicationsStore.useRefreshed();
  useTokenIntentsStore.useRefreshed();
  useTokenList();
  return (
    <SplitPane label="Resize the token list" storageKey="tokenbench.tokens.split" initial={0.62} start={<TokenListPanel />} end={<SideInView />} />
  );
}
