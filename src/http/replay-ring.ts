/**
 * The last frames sent on one connection, for a client that resumes: a fixed ring of frame prefixes (the frame
 * without its seq). Seqs are consecutive, so the ring keeps no seqs: the newest entry is the one just sent, and the
 * others count back from it. Recording an event is O(1) and allocates nothing once the ring is full; it runs once per
 * delivered event, which on a busy channel is hundreds of thousands of times a second.
 */
export class ReplayRing {
  private items: string[] = [];
  /** Index of the oldest entry. */
  private start = 0;
  private count = 0;

  /** Records the frame just sent; keeps at most `capacity` (a setting, so it may change between calls). */
  push(prefix: string, capacity: number): void {
    if (capacity !== this.items.length) this.resize(capacity);
    if (capacity === 0) return;
    if (this.count < capacity) {
      this.items[(this.start + this.count) % capacity] = prefix;
      this.count++;
      return;
    }
    this.items[this.start] = prefix;
    this.start = (this.start + 1) % capacity;
  }

  /**
   * The prefixes of the events numbered `from` up to `next` − 1 (`next` is the seq the connection gives its next
   * event), oldest first, or undefined when some of them are no longer kept.
   */
  since(from: number, next: number): Array<{ seq: number; prefix: string }> | undefined {
    if (from > next) return undefined;
    const missing = next - from;
    if (missing > this.count) return undefined;
    const out: Array<{ seq: number; prefix: string }> = [];
    const cap = this.items.length;
    for (let i = this.count - missing; i < this.count; i++) out.push({ seq: next - this.count + i, prefix: this.items[(this.start + i) % cap] });
    return out;
  }

  /** Re-lays the ring for a new capacity, keeping the newest entries that fit. */
  private resize(capacity: number): void {
    const kept = Math.min(this.count, capacity);
    const items: string[] = new Array<string>(capacity);
    const cap = this.items.length;
    for (let i = 0; i < kept; i++) items[i] = this.items[(this.start + this.count - kept + i) % cap];
    this.items = items;
    this.start = 0;
    this.count = kept;
  }
}
