/**
 * A bounded map that forgets entries not used recently, by the second-chance rule: a hit only marks its entry, and
 * eviction, walking from the oldest insertion, gives a marked entry one more round instead of evicting it. A hit
 * costs one lookup and no reordering (the expression caches take about twenty hits per proxied request); a capacity
 * of 0 disables caching.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; used: boolean }>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  getOrCreate(key: K, create: () => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      hit.used = true;
      return hit.value;
    }
    const value = create();
    if (this.capacity > 0) {
      // Room is made first, so the new entry is never the one evicted.
      if (this.entries.size >= this.capacity) this.evictOne();
      this.entries.set(key, { value, used: false });
    }
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  private evictOne(): void {
    // Ends: every marked entry met is unmarked and moved to the back, so a full pass finds an unmarked one.
    for (const [key, entry] of this.entries) {
      this.entries.delete(key);
      if (!entry.used) return;
      entry.used = false;
      this.entries.set(key, entry);
    }
  }
}
