/**
 * `$.name.name…` JSONPaths, the form nearly every proxy expression uses (`{{ id | json: '$.number' }}`), read
 * without jsonpath-plus, whose path tokenizer and tracer cost many times the lookup itself. For such a path
 * jsonpath-plus follows each step only into an own property of a truthy value (`val && Object.hasOwn(val, name)`,
 * in `_trace`), and that is all `readSimplePath` does, so both give the same match. Any other path, and a falsy
 * document (which jsonpath-plus refuses), stays with jsonpath-plus.
 */

/** Names that jsonpath-plus reads as plain property names: no `*`, `..`, `^`, `~`, `@`, `$`, `(`, `,`, `:`, quotes. */
const SIMPLE_PATH = /^\$(?:\.[A-Za-z_][A-Za-z0-9_]*)+$/;

/** The property names of a `$.a.b` path, or undefined for any other JSONPath. */
export function simplePathNames(path: string): readonly string[] | undefined {
  return SIMPLE_PATH.test(path) ? path.slice(2).split('.') : undefined;
}

/** The value `names` reaches from `json` (a truthy document), or null when nothing matches (as `json` reports it). */
export function readSimplePath(json: unknown, names: readonly string[]): unknown {
  let value = json;
  for (const name of names) {
    if (!value || !Object.hasOwn(value as object, name)) return null;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}
