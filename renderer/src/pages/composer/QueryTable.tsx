import { useComposerStore } from '../../state/composer-store';
import { RowsTable } from './RowsTable';
import { queryOf, withQuery } from './wire-request';

/** The target's query as rows: editing a row writes the target again. */
export function QueryTable() {
  const target = useComposerStore((state) => state.draft.target);
  const edit = useComposerStore((state) => state.edit);
  const rows = queryOf(target).map(([name, value]) => ({ name, value, enabled: true }));
  return (
    <RowsTable
      label="Query"
      rows={rows}
      switchable={false}
      onChange={(next) => edit({ target: withQuery(target, next.map(({ name, value }): [string, string] => [name, value])) })}
    />
  );
}
