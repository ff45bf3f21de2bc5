import type { ApplicationChoice } from '../../../shared/workbench/application-contract';

/** A labelled choice of one of the engine's applications, each named with its type. */
export function ApplicationSelect({
  label,
  applications,
  value,
  onChange,
}: {
  label: string;
  applications: readonly ApplicationChoice[];
  value: string;
  onChange: (id: string) => void;
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        {applications.map((app) => (
          <option key={app.id} value={app.id}>
            {app.name} · {app.type}
          </option>
        ))}
      </select>
    </label>
  );
}
