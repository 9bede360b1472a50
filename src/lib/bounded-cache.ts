/**
 * A least-recently-used cache bounded by entry count and by total size (each value's size as `sizeOf` measures it).
 * A value larger than `maxEntrySize` is not kept; adding past either bound drops the least recently used entries.
 */
export class BoundedCache<V> {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  private readonly entries = new Map<string, { value: V; size: number }>();
  private total = 0;

  constructor(private readonly limits: { maxEntries: number; maxSize: number; maxEntrySize: number; sizeOf: (value: V) => number }) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    this.delete(key);
    const size = this.limits.sizeOf(value);
    if (size > this.limits.maxEntrySize || size > this.limits.maxSize) return;
    this.entries.set(key, { value, size });
    this.total += size;
    while (this.entries.size > this.limits.maxEntries || this.total > this.limits.maxSize) {
      this.delete(this.entries.keys().next().value as string);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.size;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The sum of the kept values' sizes. */
  get totalSize(): number {
    return this.total;
  }
}
