import type { ReactNode } from 'react';

/** Children shown per object or array; a huge answer stays responsive, and the raw view has the rest. */
const MAX_CHILDREN = 200;
/** Levels open at first; deeper ones open on a click (or Enter on their summary). */
const OPEN_LEVELS = 3;

function Scalar({ value }: { value: string | number | boolean | null }) {
  if (typeof value === 'string') return <span className="json-string">{JSON.stringify(value)}</span>;
  if (value === null) return <span className="json-literal">null</span>;
  return <span className="json-literal">{String(value)}</span>;
}

function Node({ name, value, depth }: { name: ReactNode; value: unknown; depth: number }) {
  const key = name === null ? null : <span className="json-key">{name}: </span>;
  if (typeof value !== 'object' || value === null) {
    return (
      <li>
        {key}
        <Scalar value={value as string | number | boolean | null} />
      </li>
    );
  }
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <li>
        {key}
        {open + close}
      </li>
    );
  }
  return (
    <li>
      <details open={depth < OPEN_LEVELS}>
        <summary>
          {key}
          {open} <span className="muted">{entries.length} {Array.isArray(value) ? 'items' : 'keys'}</span> {close}
        </summary>
        <ul>
          {entries.slice(0, MAX_CHILDREN).map(([childName, child]) => (
            <Node key={childName} name={Array.isArray(value) ? childName : JSON.stringify(childName)} value={child} depth={depth + 1} />
          ))}
          {entries.length > MAX_CHILDREN && <li className="muted">… and {entries.length - MAX_CHILDREN} more (the raw view shows them)</li>}
        </ul>
      </details>
    </li>
  );
}

/** A JSON value as a tree whose objects and arrays fold (native <details>: mouse and keyboard alike). */
export function JsonTree({ value, label }: { value: unknown; label: string }) {
  return (
    <ul className="json-tree" aria-label={label}>
      <Node name={null} value={value} depth={0} />
    </ul>
  );
}
