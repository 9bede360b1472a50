/**
 * The last frames sent on one connection, for a client that resumes: a ring of frame prefixes (the frame without its
 * seq). Seqs are consecutive, so the ring keeps no seqs: the newest entry is the one just sent, and the others count
 * back from it. Recording an event is O(1) (amortised: each entry is let go once) and allocates nothing once the ring
 * is full (it runs once per delivered event, hundreds of thousands of times a second on a busy channel); until then the
 * ring grows as it fills, so an idle connection holds only what it was sent.
 *
 * Bounded twice: by a number of events and by their total size. A count alone let a connection hold 128 frames of
 * any size (a post with large props is ~0.3 MB a frame), which many connections of one user multiplied into gigabytes
 * (review round 3, H2). The size is counted in characters of the frames (UTF-16 code units, what the strings hold;
 * their JSON is almost all ASCII, so about their bytes on the wire); the oldest frames go first.
 */
export class ReplayRing {
  /** Slots of a circular buffer; `count` of them from `start` (wrapping) are kept, oldest first. */
  private items: string[] = [];
  private start = 0;
  private count = 0;
  private capacity = -1;
  /** Total length of the frames kept. */
  private chars = 0;

  /** Events kept. */
  get size(): number {
    return this.count;
  }

  /** Characters kept (the frames' total length). */
  get length(): number {
    return this.chars;
  }

  /**
   * Records the frame just sent; keeps at most `capacity` frames of at most `maxChars` characters together (both are
   * settings, so they may change between calls). A frame larger than `maxChars` on its own empties the ring: no
   * earlier event can be replayed without it, so a client that missed it gets a new hello (and refetches).
   */
  push(prefix: string, capacity: number, maxChars = Infinity): void {
    if (capacity !== this.capacity) this.resize(capacity);
    if (capacity === 0 || prefix.length > maxChars) {
      this.clear();
      return;
    }
    if (this.count === capacity) this.dropOldest();
    while (this.count > 0 && this.chars + prefix.length > maxChars) this.dropOldest();
    const slot = (this.start + this.count) % capacity;
    if (slot === this.items.length) this.items.push(prefix);
    else this.items[slot] = prefix;
    this.count++;
    this.chars += prefix.length;
  }

  /**
   * The prefixes of the events numbered `from` up to `next` − 1 (`next` is the seq the connection gives its next
   * event), oldest first, or undefined when some of them are no longer kept.
   */
  since(from: number, next: number): Array<{ seq: number; prefix: string }> | undefined {
    const count = this.count;
    if (from > next || next - from > count) return undefined;
    const out: Array<{ seq: number; prefix: string }> = [];
    for (let i = count - (next - from); i < count; i++) out.push({ seq: next - count + i, prefix: this.items[(this.start + i) % this.items.length] });
    return out;
  }

  private dropOldest(): void {
    const slots = this.items.length;
    this.chars -= this.items[this.start].length;
    // The slot is reused by a later push; until then it must not keep the frame alive.
    this.items[this.start] = '';
    this.start = (this.start + 1) % slots;
    this.count--;
  }

  private clear(): void {
    this.items = [];
    this.start = 0;
    this.count = 0;
    this.chars = 0;
  }

  /** Re-lays the ring for a new capacity, keeping the newest entries that fit, unwrapped. */
  private resize(capacity: number): void {
    const kept = Math.min(this.count, capacity);
    const items: string[] = [];
    for (let i = this.count - kept; i < this.count; i++) items.push(this.items[(this.start + i) % this.items.length]);
    this.items = items;
    this.start = 0;
    this.count = kept;
    this.chars = items.reduce((n, s) => n + s.length, 0);
    this.capacity = capacity;
  }
}
