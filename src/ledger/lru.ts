/**
 * A Map bounded to `max` entries that evicts the least recently used one in O(1): a Map iterates in insertion
 * order, so a `get` that hits re-inserts the key at the end and the first key is always the oldest.
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(
    readonly max: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    if (!(max >= 1)) throw new RangeError(`LRU size must be at least 1 (got ${max})`);
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): void {
    const old = this.map.get(key);
    if (old !== undefined) {
      this.map.delete(key);
      if (old !== value) this.onEvict?.(key, old);
    }
    this.map.set(key, value);
    if (this.map.size > this.max) {
      const [k, v] = this.map.entries().next().value as [K, V];
      this.map.delete(k);
      this.onEvict?.(k, v);
    }
  }

  delete(key: K): void {
    const v = this.map.get(key);
    if (v === undefined) return;
    this.map.delete(key);
    this.onEvict?.(key, v);
  }

  clear(): void {
    if (this.onEvict) for (const [k, v] of this.map) this.onEvict(k, v);
    this.map.clear();
  }
}
