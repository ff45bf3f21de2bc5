import type { AccessRuleView, PermissionInfo } from '../../../../shared/workbench/application-contract';

type Transform = AccessRuleView['transform'];

const TRANSFORMS: Record<Transform, string> = {
  redact: 'redact: no data',
  mask: 'mask: the token’s mask',
  reveal: 'reveal: plaintext',
};

/** Rules in the order they are tried: ascending priority, ties in the order written. */
export const inOrder = (rules: readonly AccessRuleView[]): AccessRuleView[] =>
  rules
    .map((rule, at) => ({ rule, at }))
    .sort((a, b) => a.rule.priority - b.rule.priority || a.at - b.at)
    .map(({ rule }) => rule);

/** The priority a new rule gets: after every rule there is. */
const nextPriority = (rules: readonly AccessRuleView[]) => rules.reduce((highest, rule) => Math.max(highest, rule.priority), 0) + 1;

interface RulesEditorProps {
  rules: readonly AccessRuleView[];
  /** The token permissions a rule of this application may grant. */
  permissions: readonly PermissionInfo[];
  onChange(rules: AccessRuleView[]): void;
}

/**
 * An application's access rules in the order the vault tries them. Moving a rule up or down swaps its priority with
 * its neighbour's, so the order shown is always the order of the priorities that are saved.
 */
export function RulesEditor({ rules, permissions, onChange }: RulesEditorProps) {
  const ordered = inOrder(rules);
  const change = (at: number, patch: Partial<AccessRuleView>) => onChange(ordered.map((rule, i) => (i === at ? { ...rule, ...patch } : rule)));
  // The two rules trade places and priorities: with equal priorities, the place keeps the new order.
  const move = (at: number, to: number) => {
    const next = [...ordered];
    next[at] = { ...ordered[to], priority: ordered[at].priority };
    next[to] = { ...ordered[at], priority: ordered[to].priority };
    onChange(next);
  };
  const add = () => onChange([...ordered, { description: '', priority: nextPriority(ordered), container: '/', transform: 'mask', permissions: ['token:read'] }]);
  return (
    <fieldset className="settings-fieldset">
      <legend>Access rules</legend>
      <p className="muted settings-hint">
        Tried in ascending priority: for each permission a request needs, the first rule that grants it on a container covering the token’s decides
        what the application gets. A token in several containers needs the permission on each and gets the strictest transform.
      </p>
      {ordered.length === 0 ? (
        <p className="muted">No rules: the permissions above apply, masked, on every container.</p>
      ) : (
        <ol className="rules" aria-label="Access rules">
          {ordered.map((rule, i) => {
            const which = `rule ${i + 1}`;
            return (
              <li key={i} className="rule">
                <div className="rule-fields">
                  <label>
                    Priority
                    <input type="number" value={rule.priority} onChange={(event) => change(i, { priority: Number(event.target.value) })} aria-label={`Priority of ${which}`} />
                  </label>
                  <label className="rule-container">
                    Container
                    <input type="text" spellCheck={false} value={rule.container} onChange={(event) => change(i, { container: event.target.value })} aria-label={`Container of ${which}`} />
                  </label>
                  <label>
                    Transform
                    <select value={rule.transform} onChange={(event) => change(i, { transform: event.target.value as Transform })} aria-label={`Transform of ${which}`}>
                      {Object.entries(TRANSFORMS).map(([value, label]) => (
                        <option key={value} value={value}>
                          {label}
                        </option>
                      ))}
                    </select>
                  </label>
                  <label className="rule-description">
                    Description
                    <input type="text" value={rule.description} onChange={(event) => change(i, { description: event.target.value })} aria-label={`Description of ${which}`} />
                  </label>
                </div>
                <fieldset className="rule-permissions">
                  <legend className="visually-hidden">Permissions of {which}</legend>
                  {permissions.map((permission) => (
                    <label key={permission.type} title={permission.description}>
                      <input
                        type="checkbox"
                        checked={rule.permissions.includes(permission.type)}
                        onChange={(event) =>
                          change(i, {
                            permissions: event.target.checked ? [...rule.permissions, permission.type] : rule.permissions.filter((p) => p !== permission.type),
                          })
                        }
                      />
                      <code>{permission.type}</code>
                    </label>
                  ))}
                </fieldset>
                <div className="rule-actions">
                  <button type="button" className="small" disabled={i === 0} onClick={() => move(i, i - 1)} aria-label={`Move ${which} up`}>
                    ↑
                  </button>
                  <button type="button" className="small" disabled={i === ordered.length - 1} onClick={() => move(i, i + 1)} aria-label={`Move ${which} down`}>
                    ↓
                  </button>
                  <button type="button" className="small" onClick={() => onChange(ordered.filter((_, j) => j !== i))} aria-label={`Remove ${which}`}>
                    Remove
                  </button>
                </div>
              </li>
            );
          })}
        </ol>
      )}
      <button type="button" className="small" onClick={add}>
        Add rule
      </button>
    </fieldset>
  );
}
