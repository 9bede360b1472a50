/**
 * FileSettings.MaxUserStorageBytes for the uploads of one process: what a user has stored is read from the database
 * once for all their uploads in flight, and every byte those uploads pass is counted against it as it arrives, so
 * that several requests of one user at once (the apps upload each file in a request of its own) cannot each spend
 * the same allowance.
 *
 * A user's ledger lives while one of their uploads is running. The bytes of an upload that completes stay counted in
 * it (they are in the database too now, but `stored` was read before they were); those of an upload that fails are
 * taken out again (they were removed). Once the user's last upload ends, the ledger goes and the next upload reads
 * the database afresh. Uploads on other processes are not seen until they are stored.
 */
export class UploadQuota {
  private readonly ledgers = new Map<string, Ledger>();

  constructor(private readonly storedBytes: (userId: string) => Promise<number>) {}

  /** Starts counting one upload request of `userId`; its ticket must be closed (close) whatever happens. */
  async open(userId: string): Promise<QuotaTicket> {
    let ledger = this.ledgers.get(userId);
    if (!ledger) {
      ledger = { stored: this.storedBytes(userId), passed: 0, uploads: 0 };
      this.ledgers.set(userId, ledger);
    }
    ledger.uploads++;
    let stored: number;
    try {
      stored = await ledger.stored;
    } catch (err) {
      this.leave(userId, ledger);
      throw err;
    }
    return new QuotaTicket(stored, ledger, () => this.leave(userId, ledger));
  }

  private leave(userId: string, ledger: Ledger): void {
    if (--ledger.uploads === 0 && this.ledgers.get(userId) === ledger) this.ledgers.delete(userId);
  }
}

interface Ledger {
  stored: Promise<number>;
  /** Bytes passed by this user's uploads since `stored` was read, less those of uploads that failed. */
  passed: number;
  uploads: number;
}

/** One upload request's account. */
export class QuotaTicket {
  private own = 0;
  private closed = false;

  constructor(
    private readonly stored: number,
    private readonly ledger: Ledger,
    private readonly onClose: () => void,
  ) {}

  /** Bytes the user may still store under `limit`. */
  left(limit: number): number {
    return limit - this.stored - this.ledger.passed;
  }

  /** Counts `n` more bytes; false (and nothing counted) when they would pass `limit`. */
  take(n: number, limit: number): boolean {
    if (n > this.left(limit)) return false;
    this.own += n;
    this.ledger.passed += n;
    return true;
  }

  /** Ends the request: `kept` false when what it stored was removed, which gives its bytes back. */
  close(kept: boolean): void {
    if (this.closed) return;
    this.closed = true;
    if (!kept) this.ledger.passed -= this.own;
    this.onClose();
  }
}
