import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruCache, RepeatCache } from '../../electron/engine/lru-cache';

/**
 * Which of `keys` the cache still holds. A miss throws from `create`, before anything is inserted or evicted; a hit
 * counts as a use (in a RepeatCache, a first sighting probed here becomes a repeated key, which the tests allow for).
 */
function held<K>(cache: { getOrCreate(key: K, create: () => string): string }, keys: K[]): K[] {
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

  it('keeps the keys used since the older half was filled, and forgets the rest', () => {
    const cache = new LruCache<string, string>(4);
    for (const key of ['a', 'b']) cache.getOrCreate(key, () => key); // a and b fill the newer half, which becomes the older
    cache.getOrCreate('a', () => 'unused'); // a hit moves a to the newer half
    cache.getOrCreate('c', () => 'c'); // a and c fill it: the older half, with b, is dropped
    expect(cache.size).toBe(2);
    expect(held(cache, ['a', 'b', 'c'])).toEqual(['a', 'c']);
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
          // A key just used is held while half the capacity of other keys, less one, is added after it.
          cache.getOrCreate(99, () => 'value 99');
          for (let key = 100; key < 99 + Math.ceil(capacity / 2); key++) cache.getOrCreate(key, () => `value ${key}`);
          expect(held(cache, [99])).toEqual([99]);
        },
      ),
      { numRuns: 500, seed: 3 },
    );
  });
});

describe('RepeatCache', () => {
  it('keeps a key seen once among the last first sightings only, and a key seen again among the repeated ones', () => {
    const cache = new RepeatCache<string, string>(4, 4);
    for (const key of ['a', 'a', 'b', 'c', 'd', 'e']) cache.getOrCreate(key, () => key);
    // a came back and was kept; b and c were pushed out of the first sightings by d and e.
    expect(held(cache, ['a', 'b', 'c', 'd', 'e'])).toEqual(['a', 'd', 'e']);
  });

  it('keeps at most its capacity of repeated keys, the ones used most recently', () => {
    const cache = new RepeatCache<string, string>(4, 4);
    for (const key of ['a', 'a', 'b', 'b', 'a', 'c', 'c']) cache.getOrCreate(key, () => key);
    // c, kept third, displaced b, which was not used after it was kept.
    expect(held(cache, ['a', 'b', 'c'])).toEqual(['a', 'c']);
  });

  it('caches nothing with a capacity of 0', () => {
    const cache = new RepeatCache<string, number>(0, 64);
    let calls = 0;
    for (let i = 0; i < 3; i++) cache.getOrCreate('a', () => ++calls);
    expect(calls).toBe(3);
  });
});
