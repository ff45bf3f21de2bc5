import type { KeyboardEvent, ReactNode } from 'react';
import { Alert } from './Alert';
import { ColumnHeads } from './ColumnHeads';

/** Up and Down move between the rows' buttons, Home and End to the first and last, as in a list. */
function moveAmongRows(event: KeyboardEvent<HTMLTableSectionElement>) {
  const buttons = [...event.currentTarget.querySelectorAll<HTMLButtonElement>('button.proxy-row')];
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
  const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: buttons.length - 1 }[event.key];
  if (at === -1 || to === undefined || !buttons[to]) return;
  event.preventDefault();
  buttons[to].focus();
}

/**
 * A page's definitions (proxies, reactors), one a row, the first cell its name as the button that chooses it to edit;
 * a new one from the button above. `plural` names the panel and the table ("Proxies"), `one` the button ("proxy").
 */
export interface DefinitionListProps<T> {
  plural: string;
  one: string;
  hint: ReactNode;
  items: readonly T[] | null;
  /** Why the last read failed. */
  problem: string | null;
  /** The columns after the name's. */
  columns: readonly string[];
  cells: (item: T) => ReactNode;
  /** Said under an item's name (where it comes from). */
  nameNote?: (item: T) => ReactNode;
  selected: string | null;
  onSelect: (id: string | null) => void;
}

export function DefinitionList<T extends { id: string; name: string }>({ plural, one, hint, items, problem, columns, cells, nameNote, selected, onSelect }: DefinitionListProps<T>) {
  const titleId = `${plural.toLowerCase()}-title`;
  return (
    <section className="panel proxy-list" aria-labelledby={titleId}>
      <div className="panel-head">
        <h2 id={titleId}>{plural}</h2>
        <button type="button" className="small" onClick={() => onSelect(null)}>
          New {one}
        </button>
      </div>
      <p className="muted proxy-hint">{hint}</p>
      <Alert message={problem && `Could not list the ${plural.toLowerCase()}: ${problem}. Is the engine running?`} />
      {items?.length === 0 && (
        <p className="muted">
          No {plural.toLowerCase()} yet: fill in the form to make the first.
        </p>
      )}
      {items && items.length > 0 && (
        <table className="data-table" aria-label={plural}>
          <ColumnHeads columns={['Name', ...columns]} />
          <tbody onKeyDown={moveAmongRows}>
            {items.map((item) => (
              <tr key={item.id} aria-selected={item.id === selected} className={item.id === selected ? 'selected' : undefined}>
                <td>
                  <button type="button" className="link proxy-row" aria-current={item.id === selected ? 'true' : undefined} onClick={() => onSelect(item.id)}>
                    {item.name}
                  </button>
                  {nameNote?.(item)}
                </td>
                {cells(item)}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
