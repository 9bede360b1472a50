/**
 * The last frames sent on one connection, for a client that resumes: a ring of frame prefixes (the frame without its
 * seq). Seqs are consecutive, so the ring keeps no seqs: the newest entry is the one just sent, and the others count
 * back from it. Recording an event is O(1) and allocates nothing once the ring is full (it runs once per delivered
 * event, hundreds of thousands of times a second on a busy channel); until then the ring grows as it fills, so an
 * idle connection holds only what it was sent.
 */
export class ReplayRing {
  /** Oldest first from `start`, wrapping; its length is the number kept (it only wraps once at capacity). */
  private items: string[] = [];
  private start = 0;
  private capacity = -1;

  /** Records the frame just sent; keeps at most `capacity` (a setting, so it may change between calls). */
  push(prefix: string, capacity: number): void {
    if (capacity !== this.capacity) this.resize(capacity);
    if (capacity === 0) return;
    if (this.items.length < capacity) {
      this.items.push(prefix);
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
    const count = this.items.length;
    if (from > next || next - from > count) return undefined;
    const out: Array<{ seq: number; prefix: string }> = [];
    for (let i = count - (next - from); i < count; i++) out.push({ seq: next - count + i, prefix: this.items[(this.start + i) % count] });
    return out;
  }

  /** Re-lays the ring for a new capacity, keeping the newest entries that fit, unwrapped. */
  private resize(capacity: number): void {
    const count = this.items.length;
    const kept = Math.min(count, capacity);
    const items: string[] = [];
    for (let i = count - kept; i < count; i++) items.push(this.items[(this.start + i) % count]);
    this.items = items;
    this.start = 0;
    this.capacity = capacity;
  }
}
