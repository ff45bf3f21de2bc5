import type { AriaAttributes } from 'react';
import type { ApplicationChoice } from '../../../shared/workbench/application-contract';

/** A labelled choice of one of the engine's applications, each named with its type. */
export function ApplicationSelect({
  label,
  applications,
  value,
  onChange,
  none,
  aria,
}: {
  label: string;
  applications: readonly Pick<ApplicationChoice, 'id' | 'name' | 'type'>[];
  value: string;
  onChange: (id: string) => void;
  /** A first choice of no application (its value ''), saying what that means. */
  none?: string;
  /** What the select says of itself besides its label: that what it holds is refused, and where that is said. */
  aria?: AriaAttributes;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(event) => onChange(event.target.value)} {...aria}>
        {none !== undefined && <option value="">{none}</option>}
        {applications.map((app) => (
          <option key={app.id} value={app.id}>
            {app.name} · {app.type}
          </option>
        ))}
      </select>
    </label>
  );
}
