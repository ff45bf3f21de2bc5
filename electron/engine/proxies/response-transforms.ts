/**
 * The response-only transforms (vendor §2.9, §2.10): mask, append_json, append_text and append_header, each a pure
 * function of the destination's answer as it stands after the transforms before it.
 */
import { isStructured, toText } from '../expressions';
import { ApiProblem } from '../server/problem';
import { luhnRuns } from '../history/card-numbers';

/** The destination's answer as response transforms see and change it. */
export interface ResponseParts {
  status: number;
  /** Flat raw pairs, as the destination sent them. */
  headers: string[];
  body: Buffer;
}

/** How many capture groups a regular expression has; null when it does not compile. */
export function captureGroups(expression: string): number | null {
  try {
    // An alternative that matches the empty string reports every group, matched or not.
    return new RegExp(`${expression}|`).exec('')!.length - 1;
  } catch {
    return null;
  }
}

/** `'a'`, `"a"` or a plain name, one step at a time. */
const STEP = /^(?:\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\])/;

/** The member names of an append_json location (`$.a.b`, `$['a'].b`); null for any other JSONPath. */
export function appendPathNames(location: string): string[] | null {
  if (!location.startsWith('$')) return null;
  const names: string[] = [];
  let rest = location.slice(1);
  while (rest !== '') {
    const step = STEP.exec(rest);
    if (!step) return null;
    names.push((step[1] ?? step[2] ?? step[3]).replace(/\\(.)/g, '$1'));
    rest = rest.slice(step[0].length);
  }
  return names.length > 0 ? names : null;
}

/**
 * `regex`: for each match, every occurrence of each captured value inside the matched span is replaced by the
 * replacement character, as many times as the value is long. `^` and `$` anchor the whole body.
 */
export function maskByExpression(text: string, expression: string, replacement: string): string {
  const pattern = new RegExp(expression, 'g');
  let out = '';
  let copied = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0] === '') {
      pattern.lastIndex++;
      continue;
    }
    let span = match[0];
    // Longest first, so a value is masked whole before a shorter one inside it.
    const values = match.slice(1).filter((v): v is string => v !== undefined && v !== '').sort((a, b) => b.length - a.length);
    for (const value of values) span = span.replaceAll(value, replacement.repeat(value.length));
    out += text.slice(copied, match.index) + span;
    copied = match.index + match[0].length;
  }
  return out + text.slice(copied);
}

/** `chase_stratus_pan`: every run of 13–19 digits that passes the Luhn check, masked at its length. */
export function maskPans(text: string, replacement: string): string {
  let out = '';
  let copied = 0;
  for (const { start, end } of luhnRuns(text)) {
    out += text.slice(copied, start) + replacement.repeat(end - start);
    copied = end;
  }
  return out + text.slice(copied);
}

/** A rendered append value: an object or array from one lone expression stays JSON; anything else is its text. */
const asJsonValue = (rendered: unknown): unknown => (isStructured(rendered) ? rendered : toText(rendered));

/** Sets `value` at `names` in the JSON object `body`, making missing objects on the way. */
export function appendJson(body: Buffer, names: readonly string[], rendered: unknown): Buffer {
  let root: unknown;
  try {
    root = JSON.parse(body.toString('utf8'));
  } catch {
    root = undefined;
  }
  if (!isPlainObject(root)) throw new ApiProblem(500, 'append_json needs a JSON object as the destination body');
  let at = root;
  for (const name of names.slice(0, -1)) {
    const next = Object.hasOwn(at, name) ? at[name] : undefined;
    if (next === undefined) define(at, name, {});
    else if (!isPlainObject(next)) throw new ApiProblem(500, `append_json cannot step into ${name}: it is not an object in the destination body`);
    at = at[name] as Record<string, unknown>;
  }
  define(at, names[names.length - 1], asJsonValue(rendered));
  return Buffer.from(JSON.stringify(root));
}

export const appendText = (body: Buffer, rendered: unknown): Buffer => Buffer.concat([body, Buffer.from(toText(rendered))]);

/** Sets header `name` (any case) to the value, replacing every header of that name. */
export function appendHeader(headers: readonly string[], name: string, rendered: unknown): string[] {
  const lower = name.toLowerCase();
  const kept: string[] = [];
  for (let i = 0; i < headers.length; i += 2) if (headers[i].toLowerCase() !== lower) kept.push(headers[i], headers[i + 1]);
  const value = toText(rendered);
  if (/[\r\n\0]/.test(value)) throw new ApiProblem(500, `append_header rendered a value for ${name} that cannot be a header (CR, LF or NUL)`);
  kept.push(name, value);
  return kept;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A `__proto__` name in a location is a member like any other, not the object's prototype. */
function define(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}
