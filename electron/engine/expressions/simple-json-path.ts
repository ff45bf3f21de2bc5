/**
 * `$.name.name…` JSONPaths, the form nearly every proxy expression uses (`{{ id | json: '$.number' }}`), read
 * without json-p3, whose node lists and locations cost many times the lookup itself. For such a path json-p3's name
 * selector steps only into an own property of an object that is not an array (`NameSelector.resolve`), and that is
 * all `readSimplePath` does, so both give the same match. Any other path stays with json-p3.
 */

/** Names that RFC 9535 reads as member-name shorthands: no `*`, `..`, brackets, quotes or filters. */
const SIMPLE_PATH = /^\$(?:\.[A-Za-z_][A-Za-z0-9_]*)+$/;

/** The property names of a `$.a.b` path, or undefined for any other JSONPath. */
export function simplePathNames(path: string): readonly string[] | undefined {
  return SIMPLE_PATH.test(path) ? path.slice(2).split('.') : undefined;
}

/** The value `names` reaches from `json`, or null when nothing matches (as `json` reports it). */
export function readSimplePath(json: unknown, names: readonly string[]): unknown {
  let value = json;
  for (const name of names) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, name)) return null;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}
