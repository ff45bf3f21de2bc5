/**
 * A table's head: its named columns, then one for each row's buttons, named for screen readers only (`buttons`:
 * "Actions", "Remove"), as every editable table of the workbench has it.
 */
export function ColumnHeads({ columns, buttons }: { columns: readonly string[]; buttons: string }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
        <th scope="col">
          <span className="visually-hidden">{buttons}</span>
        </th>
      </tr>
    </thead>
  );
}
