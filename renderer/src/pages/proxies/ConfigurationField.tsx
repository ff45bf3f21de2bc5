import type { ReactNode } from 'react';
import { FieldProblem, type FieldProblems } from '../../components/FieldProblem';
import type { HeaderRow } from '../../state/composer-store';
import { RowsTable } from '../composer/RowsTable';

/** A definition's configuration (a proxy's, a reactor's): names and values its code reads, with what the engine said of them. */
export function ConfigurationField({
  rows,
  onChange,
  problems,
  readOnly,
  hint,
}: {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  problems: FieldProblems;
  readOnly: boolean;
  /** Where the code reads them. */
  hint: ReactNode;
}) {
  return (
    <fieldset className="proxy-configuration" aria-label="Configuration">
      <legend>Configuration</legend>
      <p className="muted proxy-hint">{hint} Stored sealed; names of letters, digits and _.</p>
      <RowsTable label="Configuration" rows={rows} onChange={onChange} switchable={false} readOnly={readOnly} />
      {Object.keys(problems)
        .filter((path) => path.startsWith('configuration'))
        .map((path) => (
          <FieldProblem key={path} problems={problems} path={path} />
        ))}
    </fieldset>
  );
}
