/**
 * What a JSONPath query may cost, worked out before it runs: json-p3 evaluates a filter's inner queries eagerly and
 * cannot be interrupted, and nested descendant queries grow with the data to the power of their nesting
 * (`$..[?@..[?@..zz]]` over a few hundred nodes is billions of visits).
 */
import { type JSONPathQuery, TokenKind, jsonpath } from 'json-p3';

const { FilterSelector, SliceSelector, WildcardSelector } = jsonpath.selectors;
const { FilterQuery, FunctionExtension, InfixExpression, LogicalExpression, PrefixExpression } = jsonpath.expressions;

type FilterExpression = InstanceType<typeof jsonpath.expressions.FilterExpression>;

/** Filters inside filters this deep are refused whatever the data: no real path nests more than one or two. */
export const MAX_JSONPATH_NESTING = 3;

/** What the cost of a query over a value depends on. */
export interface JsonShape {
  /** Objects, arrays and primitives in it. */
  nodes: number;
  /** The most children any one object or array has. */
  fanOut: number;
}

const shapes = new WeakMap<object, JsonShape>();

/** The shape of parsed JSON; worked out once per object, since a request's expressions query the same token data. */
export function shapeOf(value: unknown): JsonShape {
  if (typeof value !== 'object' || value === null) return { nodes: 1, fanOut: 0 };
  let shape = shapes.get(value);
  if (!shape) {
    shape = { nodes: 1, fanOut: 0 };
    const children = Object.values(value);
    shape.fanOut = children.length;
    for (const child of children) {
      const inner = shapeOf(child);
      shape.nodes += inner.nodes;
      shape.fanOut = Math.max(shape.fanOut, inner.fanOut);
    }
    shapes.set(value, shape);
  }
  return shape;
}

/** The queries a filter expression runs for each node it is tried on, nested in logic, comparisons and functions. */
function innerQueries(expression: FilterExpression): JSONPathQuery[] {
  if (expression instanceof FilterQuery) return [expression.path];
  if (expression instanceof LogicalExpression) return innerQueries(expression.expression);
  if (expression instanceof PrefixExpression) return innerQueries(expression.right);
  if (expression instanceof InfixExpression) return [...innerQueries(expression.left), ...innerQueries(expression.right)];
  if (expression instanceof FunctionExtension) return expression.args.flatMap(innerQueries);
  return [];
}

function filterQueries(query: JSONPathQuery): JSONPathQuery[][] {
  return query.segments.flatMap((segment) => segment.selectors.filter((s) => s instanceof FilterSelector).map((s) => innerQueries(s.expression)));
}

/** How deep filters nest in `query`: 0 without filters, 1 for `$[?@.a]`, 2 for `$[?@[?@.a]]`. */
export function filterNesting(query: JSONPathQuery): number {
  const filters = filterQueries(query);
  return filters.length === 0 ? 0 : 1 + Math.max(0, ...filters.flat().map(filterNesting));
}

/**
 * An upper bound of the nodes `query` visits over a value of `shape`. Each segment is applied to every node the
 * previous one selected: a descendant segment reaches at most every node below each, a wildcard, slice or filter at
 * most `fanOut` children of each, and a filter runs its inner queries for every child it tries.
 */
export function visitBound(query: JSONPathQuery, shape: JsonShape): number {
  let selected = 1;
  let visits = 0;
  for (const segment of query.segments) {
    if (segment.token.kind === TokenKind.DDOT) {
      selected *= shape.nodes;
      visits += selected;
    }
    let next = 0;
    for (const selector of segment.selectors) {
      const fansOut = selector instanceof FilterSelector || selector instanceof WildcardSelector || selector instanceof SliceSelector;
      const tried = fansOut ? selected * shape.fanOut : selected;
      const perTry = selector instanceof FilterSelector ? innerQueries(selector.expression).reduce((sum, q) => sum + visitBound(q, shape), 1) : 1;
      visits += tried * perTry;
      next += tried;
    }
    selected = next;
  }
  return visits;
}
