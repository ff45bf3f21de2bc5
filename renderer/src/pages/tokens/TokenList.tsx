import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { StagedOperation, TokenView } from '../../../../shared/workbench/token-contract';
import { useWorkbenchApi } from '../../api/workbench-api-context';
import { useTokensStore } from '../../state/tokens-store';
import { dataSummary, metadataSummary, shortTime } from './token-format';
import { loadMoreTokens } from './token-list-actions';

/** One line per token, the same height for all: what lets 100,000 of them scroll. */
const ROW_HEIGHT = 30;
/** Read the next page when the rows shown come this close to the last one read. */
const READ_AHEAD = 40;
const STAGED_WORDS: Record<StagedOperation['operation'], string> = { create: 'created', update: 'changed', delete: 'deleted' };

interface Row {
  token: TokenView;
  staged: StagedOperation | null;
}

const rowId = (index: number) => `token-row-${index}`;

/**
 * The tokens, newest first, what open transactions stage above them; virtualized (only the rows on screen exist),
 * read page by page as it scrolls. A listbox: ↑ ↓ Home End PageUp PageDown move, Enter opens.
 */
export function TokenList() {
  const api = useWorkbenchApi();
  const tokens = useTokensStore((state) => state.tokens);
  const staged = useTokensStore((state) => state.staged);
  const next = useTokensStore((state) => state.next);
  const loading = useTokensStore((state) => state.loading);
  const panel = useTokensStore((state) => state.panel);
  const show = useTokensStore((state) => state.show);
  const rows = useMemo<Row[]>(
    () => [...staged.map(({ token, staged: operation }) => ({ token, staged: operation })), ...tokens.map((token) => ({ token, staged: null }))],
    [staged, tokens],
  );
  const scroller = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  const current = Math.min(active, rows.length - 1);
  // The virtualizer hands back functions React Compiler cannot see into; this component is left to plain React.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const items = virtualizer.getVirtualItems();
  const lastShown = items.at(-1)?.index ?? 0;

  useEffect(() => {
    if (next && !loading && lastShown >= rows.length - READ_AHEAD) void loadMoreTokens(api);
  }, [api, next, loading, lastShown, rows.length]);

  // A staged delete is read as the vault still holds it; a staged create or change, inside its transaction.
  const open = (row: Row) =>
    show({ kind: 'detail', id: row.token.id, stagedIn: row.staged && row.staged.operation !== 'delete' ? row.staged.transaction_id : null });
  const moveTo = (index: number) => {
    const target = Math.max(0, Math.min(rows.length - 1, index));
    setActive(target);
    virtualizer.scrollToIndex(target);
  };
  const perPage = Math.max(1, Math.floor((scroller.current?.clientHeight ?? ROW_HEIGHT * 10) / ROW_HEIGHT) - 1);
  const onKeyDown = (event: KeyboardEvent) => {
    const moves: Record<string, number> = {
      ArrowDown: current + 1,
      ArrowUp: current - 1,
      Home: 0,
      End: rows.length - 1,
      PageDown: current + perPage,
      PageUp: current - perPage,
    };
    if (event.key in moves) {
      event.preventDefault();
      moveTo(moves[event.key]);
    } else if (event.key === 'Enter' && rows[current]) {
      event.preventDefault();
      open(rows[current]);
    }
  };

  return (
    <div className="token-table">
      <div className="token-row token-header" aria-hidden="true">
        <span>Id</span>
        <span>Type</span>
        <span>Data (masked)</span>
        <span className="wide-only">Containers</span>
        <span className="medium-only">Metadata</span>
        <span>Created</span>
        <span className="wide-only">Expires</span>
      </div>
      <div
        className="token-scroller"
        ref={scroller}
        role="listbox"
        aria-label="Tokens"
        tabIndex={0}
        aria-activedescendant={rows.length > 0 ? rowId(current) : undefined}
        onKeyDown={onKeyDown}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const row = rows[item.index];
            const { token } = row;
            const opened = panel.kind === 'detail' && panel.id === token.id;
            return (
              <div
                key={`${row.staged?.transaction_id ?? ''}${token.id}`}
                id={rowId(item.index)}
                role="option"
                aria-selected={opened}
                className={['token-row', row.staged && 'staged', item.index === current && 'active'].filter(Boolean).join(' ')}
                style={{ transform: `translateY(${item.start}px)` }}
                onClick={() => {
                  setActive(item.index);
                  open(row);
                }}
              >
                <span className="mono" title={token.id}>
                  {token.id}
                </span>
                <span title={token.type}>
                  {row.staged && (
                    <span className="badge badge-staged" title={`Staged in transaction ${row.staged.transaction_id}: ${STAGED_WORDS[row.staged.operation]}`}>
                      staged<span className="visually-hidden"> ({STAGED_WORDS[row.staged.operation]})</span>
                    </span>
                  )}{' '}
                  {token.type}
                </span>
                <span className={token.data === undefined ? 'redacted' : 'mono'}>{dataSummary(token.data)}</span>
                <span className="mono wide-only">{token.containers.join(' ')}</span>
                <span className="medium-only">{metadataSummary(token.metadata)}</span>
                <span>{shortTime(token.created_at)}</span>
                <span className="wide-only">{token.expires_at ? shortTime(token.expires_at) : '–'}</span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
