import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruCache } from '../../electron/engine/lru-cache';

/** Which of `keys` the cache still holds. A miss throws from `create`, before anything is inserted or evicted. */
function held<K>(cache: LruCache<K, string>, keys: K[]): K[] {
  return keys.filter((key) => {
    try {
      cache.getOrCreate(key, () => {
        throw new Error('miss');
      });
      return true;
    } catch {
      return false;
    }
  });
}

describe('LruCache', () => {
  it('creates once per key and returns the cached value after', () => {
    const cache = new LruCache<string, object>(10);
    const first = cache.getOrCreate('a', () => ({}));
    expect(cache.getOrCreate('a', () => ({}))).toBe(first);
  });

  it('never holds more than its capacity, and keeps the entries used since they were added', () => {
    const cache = new LruCache<string, string>(3);
    for (const key of ['a', 'b', 'c']) cache.getOrCreate(key, () => key);
    cache.getOrCreate('a', () => 'unused'); // a hit: a is kept over b and c
    cache.getOrCreate('d', () => 'd');
    expect(cache.size).toBe(3);
    expect(held(cache, ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
  });

  it('when every entry was used, evicts the oldest after one round', () => {
    const cache = new LruCache<string, string>(3);
    for (const key of ['a', 'b', 'c']) cache.getOrCreate(key, () => key);
    for (const key of ['a', 'b', 'c']) cache.getOrCreate(key, () => 'unused');
    cache.getOrCreate('d', () => 'd');
    expect(cache.size).toBe(3);
    expect(held(cache, ['a', 'b', 'c', 'd'])).toEqual(['b', 'c', 'd']);
  });

  it('caches nothing with a capacity of 0', () => {
    const cache = new LruCache<string, number>(0);
    let calls = 0;
    cache.getOrCreate('a', () => ++calls);
    cache.getOrCreate('a', () => ++calls);
    expect(calls).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('under any mix of lookups and deletes, stays within capacity and answers each key with its own value', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.record({ del: fc.boolean(), key: fc.integer({ min: 0, max: 8 }) }), { maxLength: 200 }),
        (capacity, ops) => {
          const cache = new LruCache<number, string>(capacity);
          for (const { del, key } of ops) {
            if (del) cache.delete(key);
            else expect(cache.getOrCreate(key, () => `value ${key}`)).toBe(`value ${key}`);
            expect(cache.size).toBeLessThanOrEqual(capacity);
          }
          // A key just used is held until capacity more keys are added.
          cache.getOrCreate(99, () => 'value 99');
          expect(held(cache, [99])).toEqual([99]);
        },
      ),
      { numRuns: 500, seed: 3 },
    );
  });
});
