import type { PermissionInfo } from '../../../../shared/workbench/application-contract';

/** The vendor's permissions one application type may hold, each a checkbox with its meaning. */
export function PermissionChecks({ permissions, granted, onChange }: { permissions: PermissionInfo[]; granted: string[]; onChange: (granted: string[]) => void }) {
  return (
    <div className="permission-list">
      {permissions.map((permission) => (
        <label key={permission.type}>
          <input
            type="checkbox"
            checked={granted.includes(permission.type)}
            onChange={(event) => onChange(event.target.checked ? [...granted, permission.type] : granted.filter((p) => p !== permission.type))}
          />
          <code>{permission.type}</code>
          <span className="muted">{permission.description}</span>
        </label>
      ))}
    </div>
  );
}
