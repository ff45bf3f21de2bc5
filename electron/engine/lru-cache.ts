/** A bounded map that forgets the least recently used entry; a capacity of 0 disables caching. */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  getOrCreate(key: K, create: () => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Re-insert so Map order (insertion order) doubles as recency order.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const value = create();
    if (this.capacity > 0) {
      this.entries.set(key, value);
      if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    }
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
