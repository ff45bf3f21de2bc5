import { compile } from 'json-p3';
import { describe, expect, it } from 'vitest';
import { filterNesting, shapeOf, visitBound } from '../../electron/engine/expressions/json-path-cost';

describe('shapeOf', () => {
  it('counts every node and the widest object or array', () => {
    expect(shapeOf({ a: [1, 2, 3], b: { c: 1 } })).toEqual({ nodes: 7, fanOut: 3 });
    expect(shapeOf('text')).toEqual({ nodes: 1, fanOut: 0 });
    expect(shapeOf([])).toEqual({ nodes: 1, fanOut: 0 });
  });
});

describe('filterNesting', () => {
  it.each([
    ['$.a', 0],
    ['$..a[*]', 0],
    ['$[?@.a]', 1],
    ['$.a[?@.b][?@.c]', 1],
    ['$[?@[?@.a]]', 2],
    ['$[?count(@..[?@.b]) > 1 && @.c]', 2],
    ['$..[?@..[?@..[?@..[?@..[?@..[?@..zz]]]]]]', 6],
  ])('%s nests %i deep', (path, depth) => {
    expect(filterNesting(compile(path))).toBe(depth);
  });
});

describe('visitBound', () => {
  const shape = { nodes: 100, fanOut: 10 };
  it.each([
    ['$.a.b', 2],
    ['$..zz', 200],
    ['$.a[*].b', 1 + 10 + 10],
    ['$[0,1]', 2],
    // Each of the 10 children tried runs `@.b` once.
    ['$[?@.b]', 10 * 2],
    // Every node, each child of every node, and below each child every node again.
    ['$..[?@..zz]', 100 + 100 * 10 * (1 + 200)],
  ])('bounds %s at %i visits over 100 nodes, 10 wide', (path, visits) => {
    expect(visitBound(compile(path), shape)).toBe(visits);
  });

  it('grows with the data to the power of the nesting, which is what the budget refuses', () => {
    const nested = compile('$..[?@..[?@..zz]]');
    expect(visitBound(nested, { nodes: 10, fanOut: 3 })).toBeLessThan(25_000);
    expect(visitBound(nested, { nodes: 300, fanOut: 3 })).toBeGreaterThan(1e8);
  });
});
