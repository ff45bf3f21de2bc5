/**
 * A table's head: its named columns, then, for an editable table, one for each row's buttons, named for screen
 * readers only (`buttons`: "Actions", "Remove").
 */
export function ColumnHeads({ columns, buttons }: { columns: readonly string[]; buttons?: string }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        {buttons !== undefined && (
          <th scope="col">
            <span className="visually-hidden">{buttons}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
