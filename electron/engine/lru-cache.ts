/**
 * A bounded map that forgets keys not used recently, in two generations (the hashlru scheme): keys go into the newer
 * Map; once that holds half the capacity it becomes the older one, and the older one is dropped whole. A hit in the
 * older generation moves its key to the newer one. At most `capacity` keys are held, and a key just used stays while
 * half the capacity of other keys, less one, is added after it. A capacity of 0 disables caching.
 *
 * Not one Map evicting key by key: V8 allocates the table that replaces an old-space Map's table in old space, and the
 * replaced table still points at what it held until a full collection, so every young key and value that passed
 * through such a Map would be promoted (docs/performance-log.md, Findings).
 */
export class LruCache<K, V> {
  private newer = new Map<K, V>();
  private older = new Map<K, V>();
  private readonly generation: number;

  constructor(capacity: number) {
    this.generation = Math.ceil(capacity / 2);
  }

  get size(): number {
    return this.newer.size + this.older.size;
  }

  getOrCreate(key: K, create: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = create();
    this.add(key, value);
    return value;
  }

  get(key: K): V | undefined {
    const hit = this.newer.get(key);
    if (hit !== undefined) return hit;
    const old = this.older.get(key);
    if (old !== undefined) {
      this.older.delete(key);
      this.add(key, old);
    }
    return old;
  }

  /** Adds a key the cache does not hold. */
  add(key: K, value: V): void {
    if (this.generation === 0) return;
    this.newer.set(key, value);
    if (this.newer.size >= this.generation) {
      this.older = this.newer;
      this.newer = new Map();
    }
  }

  delete(key: K): void {
    this.newer.delete(key);
    this.older.delete(key);
  }

  clear(): void {
    this.newer = new Map();
    this.older = new Map();
  }
}

/**
 * A cache that keeps a value for long only once its key comes back: a first sighting waits in an LruCache of `trial`
 * first sightings, and a second one moves it to an LruCache of `capacity`. For keys that are mostly seen once (request
 * bodies, which carry new ids and amounts each time) every insert into a large cache is wasted, and more than the
 * insert: each value lives long enough for the garbage collector to copy it out of the young generation, and then to
 * promote it to the old one, which only a full collection clears.
 */
export class RepeatCache<K, V> {
  private readonly firstSeen: LruCache<K, V>;
  private readonly repeated: LruCache<K, V>;

  constructor(capacity: number, trial: number) {
    this.repeated = new LruCache(capacity);
    this.firstSeen = new LruCache(capacity === 0 ? 0 : trial);
  }

  getOrCreate(key: K, create: () => V): V {
    const repeated = this.repeated.get(key);
    if (repeated !== undefined) return repeated;
    const seen = this.firstSeen.get(key);
    if (seen === undefined) {
      const value = create();
      this.firstSeen.add(key, value);
      return value;
    }
    this.firstSeen.delete(key);
    this.repeated.add(key, seen);
    return seen;
  }
}
