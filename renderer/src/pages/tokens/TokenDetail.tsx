import { useEffect, useState } from 'react';
import type { TokenDetail as Detail, TokenView } from '../../../../shared/workbench/token-contract';
import { useEngineCall } from '../../api/engine-call';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { Alert } from '../../components/Alert';
import { Tabs } from '../../components/Tabs';
import { useTimedReveal } from '../../components/timed-reveal';
import { applicationToUse, useApplicationsStore, useApplicationName } from '../../state/applications-store';
import { readTokenDetail, useTokenDetail } from '../../state/token-detail-store';
import { useTokensStore } from '../../state/tokens-store';
import { CardFact } from './CardFact';
import { ReadAs } from './ReadAs';
import { fromNow, fullTime, shortTime, TYPE_LABELS } from './token-format';
import { SHORT_ID } from './TokenContext';
import { DeleteToken, TokenEditor } from './TokenEditor';
import { TokenUse } from './TokenUse';
import { CopyButton } from '../../components/CopyButton';

const STAGED_WORDS = { create: 'created', update: 'changed', delete: 'deleted' } as const;

/** What the page just did, said once where the user looks next. */
export function Notice() {
  const notice = useTokensStore((state) => state.notice);
  if (!notice) return null;
  return (
    <p className="notice" role="status">
      {notice}
    </p>
  );
}

/**
 * The data: masked, or in plaintext for a while when the user reveals it as the page's application, which must itself
 * be able to read the plaintext (recorded in History by the token's id, with the application).
 */
function TokenData({ token, stagedIn, application }: { token: TokenView; stagedIn: string | null; application: { id: string; name: string } }) {
  const api = useWorkbenchApi();
  const { revealed, secondsLeft, show, hide } = useTimedReveal<{ data: unknown }>();
  const { busy, problem, run } = useEngineCall();
  const reveal = () =>
    run(async () => show(await api.revealToken({ application_id: application.id, token_id: token.id, ...(stagedIn && { transaction_id: stagedIn }) })));
  const shown = revealed ? revealed.data : token.data;
  return (
    <section className="token-data" aria-label="Data">
      <div className="reveal-bar">
        {revealed ? (
          <>
            <span className="revealed-note" role="status">
              Plaintext · hides in {secondsLeft} s
            </span>
            <button type="button" onClick={hide}>
              Hide
            </button>
          </>
        ) : (
          <>
            <span className="muted">
              {token.data === undefined ? 'Redacted for this application.' : 'Masked.'} Reveal shows the plaintext if {application.name} may read it.
            </span>
            <button type="button" onClick={() => void reveal()} disabled={busy}>
              Reveal
            </button>
          </>
        )}
      </div>
      <Alert message={problem} />
      <div className={revealed ? 'revealed' : undefined}>
        <pre className="body" aria-label={revealed ? 'Plaintext data' : 'Masked data'}>
          {shown === undefined ? 'No data: this application reads it redacted.' : JSON.stringify(shown, null, 2)}
        </pre>
      </div>
    </section>
  );
}

function Facts({ detail, now }: { detail: Detail; now: number }) {
  const { token } = detail;
  const select = useTokensStore((state) => state.show);
  const name = useApplicationName(SHORT_ID);
  const { card } = token;
  const others = detail.same_fingerprint.tokens.filter((other) => other.id !== token.id);
  const metadata = Object.entries(token.metadata ?? {});
  return (
    <dl className="facts token-facts">
      <dt>Type</dt>
      <dd>
        {token.type} <span className="muted">({TYPE_LABELS[token.type] ?? 'unknown'})</span>
      </dd>
      <dt>Containers</dt>
      <dd>{token.containers.join(' ')}</dd>
      <dt>Metadata</dt>
      <dd>{metadata.length === 0 ? '–' : metadata.map(([key, value]) => `${key}: ${value}`).join(', ')}</dd>
      {card && <CardFact card={card} />}
      <dt>Mask</dt>
      <dd>{token.mask === null || token.mask === undefined ? 'none (masked reads get no data)' : JSON.stringify(token.mask)}</dd>
      <dt>Search indexes</dt>
      <dd>{token.search_indexes.length === 0 ? '–' : token.search_indexes.join('  ')}</dd>
      <dt>Fingerprint</dt>
      <dd>
        {token.fingerprint ?? '–'}
        <div className="muted">of {token.fingerprint_expression ?? '–'}</div>
      </dd>
      <dt>Same fingerprint</dt>
      <dd>
        {detail.same_fingerprint.total <= 1 ? (
          'no other token'
        ) : (
          <>
            {detail.same_fingerprint.total - 1} other {detail.same_fingerprint.total === 2 ? 'token' : 'tokens'} (deduplication returns the oldest):
            <ul className="siblings">
              {others.map((other) => (
                <li key={other.id}>
                  <button type="button" className="link" onClick={() => select({ kind: 'detail', id: other.id, stagedIn: null })}>
                    {other.id}
                  </button>{' '}
                  <span className="muted">{shortTime(other.created_at)}</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </dd>
      <dt>Expires</dt>
      <dd>{token.expires_at ? `${fullTime(token.expires_at)} (${fromNow(token.expires_at, now)})` : 'never'}</dd>
      <dt>Created</dt>
      <dd>
        {fullTime(token.created_at)} by {token.created_by ? name(token.created_by) : '–'}
      </dd>
      <dt>Modified</dt>
      <dd>{token.modified_at ? `${fullTime(token.modified_at)} by ${token.modified_by ? name(token.modified_by) : '–'}` : '–'}</dd>
      <dt>Tenant</dt>
      <dd>{token.tenant_id}</dd>
    </dl>
  );
}

/** A clock for the expiry countdown: the time now, every second while the detail is open. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * One token, as the page's application reads it: every field, its data masked (revealed on request), the tokens that
 * share its fingerprint, what another application would get, the expressions that use it, and its changes.
 */
export function TokenDetail({ id, stagedIn }: { id: string; stagedIn: string | null }) {
  const api = useWorkbenchApi();
  const applications = useApplicationsStore((state) => state.value);
  const acting = applicationToUse(applications, useTokensStore((state) => state.applicationId));
  const applicationId = acting?.id;
  // The list's copy of the token: a new one arrives when the live road says it changed, and the detail reads again.
  const listed = useTokensStore((state) => state.tokens.find((token) => token.id === id));
  const read = useTokenDetail(applicationId ? { applicationId, id, stagedIn } : null);
  const [edits, setEdits] = useState(0);
  const [tab, setTab] = useState('fields');
  const now = useNow();

  useEffect(() => {
    if (applicationId) void readTokenDetail(api, { applicationId, id, stagedIn });
  }, [api, applicationId, id, stagedIn, listed, edits]);

  const heading = (
    <h2 id="token-title">
      Token <span className="mono">{id}</span>
    </h2>
  );
  if (!read || 'problem' in read || !acting) {
    return (
      <section className="panel token-side" aria-labelledby="token-title">
        <Notice />
        {heading}
        {read && 'problem' in read ? <Alert message={read.problem} /> : <p className="muted">Reading…</p>}
      </section>
    );
  }
  const { detail } = read;
  const { token } = detail;
  return (
    <section className="panel token-side" aria-labelledby="token-title">
      <Notice />
      {heading}
      <p className="token-badges">
        <span className="badge">{token.type}</span>
        {detail.staged && (
          <span className="badge badge-staged">
            {STAGED_WORDS[detail.staged.operation]} in open transaction {detail.staged.transaction_id.slice(0, 8)}, not committed
          </span>
        )}
        <span className="muted">read as {acting.name}: {detail.read_transform}</span>
        <CopyButton text={token.id} label="Copy the token id" caption="Copy id" />
      </p>
      <TokenData token={token} stagedIn={stagedIn} application={acting} />
      <Tabs
        label="Token"
        selected={tab}
        onSelect={setTab}
        tabs={[
          { id: 'fields', label: 'Fields', panel: () => <Facts detail={detail} now={now} /> },
          { id: 'read-as', label: 'Read as…', panel: () => <ReadAs tokenId={token.id} stagedIn={stagedIn} /> },
          { id: 'use', label: 'Use', panel: () => <TokenUse token={token} /> },
          {
            id: 'change',
            label: 'Change',
            panel: () => (
              <>
                <TokenEditor key={token.modified_at ?? token.created_at} token={token} stagedIn={stagedIn} onSaved={() => setEdits((n) => n + 1)} />
                <h3>Delete</h3>
                <DeleteToken token={token} stagedIn={stagedIn} />
              </>
            ),
          },
        ]}
      />
    </section>
  );
}
