import { useEffect, useRef } from 'react';
import { FieldProblem, problemId, type FieldProblems } from '../../components/FieldProblem';
import { byFamily } from './webhook-draft';

/** Up to this many chosen events are named in the legend; more are counted. */
const NAMED = 6;

/** A family's own checkbox: all of its events, none, or (shown mixed) some. */
function FamilyCheck({ family, types, chosen, onChange }: { family: string; types: string[]; chosen: ReadonlySet<string>; onChange: (on: boolean) => void }) {
  const box = useRef<HTMLInputElement>(null);
  const count = types.filter((type) => chosen.has(type)).length;
  useEffect(() => {
    if (box.current) box.current.indeterminate = count > 0 && count < types.length;
  }, [count, types.length]);
  return (
    <label className="webhook-family-all">
      <input ref={box} type="checkbox" checked={count === types.length} onChange={(event) => onChange(event.target.checked)} aria-label={`All ${family} events`} />
      all
    </label>
  );
}

/**
 * The events a webhook subscribes to, chosen from the served list grouped by family: the chosen ones are named in the
 * legend (counted when many) and each family is folded, with its count, so the form stays short and the keyboard passes over the others.
 */
export function EventPicker({ types, value, onChange, problems }: { types: readonly string[]; value: readonly string[]; onChange: (events: string[]) => void; problems: FieldProblems }) {
  const chosen = new Set(value);
  const set = (changed: readonly string[], on: boolean) => {
    const next = new Set(chosen);
    for (const type of changed) {
      if (on) next.add(type);
      else next.delete(type);
    }
    onChange(types.filter((type) => next.has(type)));
  };
  return (
    <fieldset className="webhook-events" aria-describedby={problems.events ? problemId('events') : undefined}>
      <legend>
        Events <span className="muted">· {value.length === 0 ? 'none chosen' : value.length <= NAMED ? value.join(', ') : `${value.length} chosen`}</span>
      </legend>
      <p className="muted proxy-hint">
        Tokenbench raises the application, proxy, reactor, token and token-intent events and tenant.updated; the others may be subscribed to, as on the hosted service, and never arrive here.
      </p>
      <div className="webhook-families">
        {byFamily(types).map(([family, members]) => {
          const count = members.filter((type) => chosen.has(type)).length;
          return (
            <details key={family} className="webhook-family">
              <summary>
                <span className="mono">{family}</span> <span className="muted">{count > 0 ? `${count} of ${members.length}` : members.length}</span>
              </summary>
              <FamilyCheck family={family} types={members} chosen={chosen} onChange={(on) => set(members, on)} />
              {members.map((type) => (
                <label key={type} className="proxy-check">
                  <input type="checkbox" checked={chosen.has(type)} onChange={(event) => set([type], event.target.checked)} />
                  <span className="mono">{type}</span>
                </label>
              ))}
            </details>
          );
        })}
      </div>
      <FieldProblem problems={problems} path="events" />
    </fieldset>
  );
}
