/**
 * Why an expression renders empty, for the workbench's checks, from the json filters its evaluation ran (see
 * LiquidRuntime.jsonSteps): the first whose JSONPath matches nothing, with what lies where the path stops matching, or
 * selects an empty value. Of the token's data only field names and kinds of value leave here, never a value.
 */
import { compileJsonPath } from './filters';
import type { JsonStep } from './liquid-runtime';
import { writesNothing } from './rendered-value';
import { simplePathNames } from './simple-json-path';

/** What a value is, by its field names or by its kind: never by what it holds. */
export type ValueShape = { fields: readonly string[] } | { kind: 'text' | 'number' | 'boolean' | 'list' | 'null' };

/** What a JSONPath was applied to: the token's data, the whole token (`token:`), or what the filters before it gave. */
export type Applied = 'data' | 'token' | 'filtered';

export type EmptyCause =
  | {
      kind: 'no_match';
      path: string;
      applied: Applied;
      /** The path as far as it matches (`$`, `$.billing`), and what is there. */
      reached: string;
      shape: ValueShape;
      /** The path with its first unmatched name replaced by the nearest field there, when one is near. */
      nearest: string | null;
    }
  | { kind: 'empty_value'; path: string; applied: Applied }
  /** No json filter explains it: the data, or the other filters, give nothing. */
  | { kind: 'filters' };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function valueShape(value: unknown): ValueShape {
  if (isObject(value)) return { fields: Object.keys(value) };
  if (Array.isArray(value)) return { kind: 'list' };
  if (typeof value === 'string') return { kind: 'text' };
  if (typeof value === 'number' || typeof value === 'bigint') return { kind: 'number' };
  if (typeof value === 'boolean') return { kind: 'boolean' };
  return { kind: 'null' };
}

/** Edits (insert, delete, replace) between two names, ignoring case. */
function distance(a: string, b: string): number {
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1));
    row = next;
  }
  return row[y.length];
}

/** The field nearest to a mistyped name: a third of its letters wrong at most (one for a short name). */
export function nearestField(name: string, fields: readonly string[]): string | null {
  const most = Math.max(1, Math.floor(name.length / 3));
  let best: string | null = null;
  let bestDistance = most + 1;
  for (const field of fields) {
    const d = distance(name, field);
    if (d < bestDistance) [best, bestDistance] = [field, d];
  }
  return best;
}

/** Where a `$.a.b` path stops matching, or that it matches: read as the json filter reads it. */
function missOfSimplePath(step: JsonStep, names: readonly string[], applied: Applied): EmptyCause {
  let value = step.input;
  let reached = '$';
  for (const [i, name] of names.entries()) {
    if (!isObject(value) || !Object.hasOwn(value, name)) {
      const shape = valueShape(value);
      const near = 'fields' in shape ? nearestField(name, shape.fields) : null;
      const nearest = near === null ? null : [reached, near, ...names.slice(i + 1)].join('.');
      return { kind: 'no_match', path: step.path, applied, reached, shape, nearest };
    }
    value = value[name];
    reached += `.${name}`;
  }
  return { kind: 'empty_value', path: step.path, applied };
}

function causeOf(step: JsonStep, applied: Applied): EmptyCause {
  const names = simplePathNames(step.path);
  if (names) return missOfSimplePath(step, names, applied);
  // Any other path: whether it selects a node at all (the filter already ran it within the request's budget).
  const matched = !compileJsonPath(step.path, true).lazyQuery(step.input as never).next().done;
  return matched ? { kind: 'empty_value', path: step.path, applied } : { kind: 'no_match', path: step.path, applied, reached: '$', shape: valueShape(step.input), nearest: null };
}

/**
 * Why an evaluation that gave nothing did: the first json filter that gave nothing from something. `whole`: the
 * expression reads the whole token (`token:`), so its first filter's input is that, not the data.
 */
export function emptyCause(steps: readonly JsonStep[], whole: boolean): EmptyCause {
  const step = steps.find((s) => writesNothing(s.output) && !writesNothing(s.input));
  if (!step) return { kind: 'filters' };
  return causeOf(step, !step.first ? 'filtered' : whole ? 'token' : 'data');
}
