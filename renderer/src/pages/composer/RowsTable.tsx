import type { HeaderRow } from '../../state/composer-store';
import { ColumnHeads } from '../../components/ColumnHeads';

/** Name and value rows; a blank row at the end takes the next one (none when the rows are only shown). */
export function RowsTable({
  label,
  rows,
  onChange,
  switchable,
  readOnly = false,
}: {
  label: string;
  rows: readonly HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  switchable: boolean;
  /** Shown, not edited: no blank row to add one, no buttons to remove them. */
  readOnly?: boolean;
}) {
  const shown = readOnly ? rows : [...rows, { name: '', value: '', enabled: true }];
  const change = (at: number, patch: Partial<HeaderRow>) => {
    const next = shown.map((row, i) => (i === at ? { ...row, ...patch } : row));
    onChange(next.filter((row, i) => i < rows.length || row.name !== '' || row.value !== ''));
  };
  return (
    <table className="rows-table" aria-label={label}>
      <ColumnHeads columns={switchable ? ['Send', 'Name', 'Value'] : ['Name', 'Value']} buttons="Remove" />
      <tbody>
        {shown.map((row, i) => {
          const blank = i === rows.length;
          const which = blank ? `new ${label.toLowerCase()} row` : `${label.toLowerCase()} ${row.name || i + 1}`;
          return (
            <tr key={i} className={row.enabled ? undefined : 'switched-off'}>
              {switchable && (
                <td>
                  {!blank && <input type="checkbox" aria-label={`Send ${which}`} checked={row.enabled} onChange={(e) => change(i, { enabled: e.target.checked })} />}
                </td>
              )}
              <td>
                <input type="text" aria-label={`Name of ${which}`} spellCheck={false} value={row.name} onChange={(e) => change(i, { name: e.target.value })} />
              </td>
              <td>
                <input type="text" aria-label={`Value of ${which}`} spellCheck={false} value={row.value} onChange={(e) => change(i, { value: e.target.value })} />
              </td>
              <td>
                {!blank && !readOnly && (
                  <button type="button" className="small" aria-label={`Remove ${which}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
                    ×
                  </button>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
