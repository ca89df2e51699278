// A worker process's accounts in flight: WORKER_CONCURRENCY slots shared by single-account jobs and the
// accounts of backfill chunks, so a hundred chunks held never mean ten thousand accounts in memory.
// A waiter asks for up to n slots at once and gets as many as are free once at least `least` are: a
// chunk's accounts that start together reach the batch channels together, so a chunk waits for a good
// share of the slots rather than starting its accounts one by one as single ones free up. Waiters are
// served by priority (BullMQ's: a lower number first, so a webhook's account goes before a backfill
// chunk's), in arrival order within one. Written here because a promise pool (p-limit, p-queue) hands
// out one slot per task, not several.

interface Waiter {
  want: number;
  least: number;
  leave: number;
  priority: number;
  seq: number;
  grant: (n: number) => void;
}

export class AccountSlots {
  readonly capacity: number;
  #used = 0;
  #seq = 0;
  #waiters: Waiter[] = [];

  constructor(capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('capacity must be at least 1');
    this.capacity = Math.floor(capacity);
  }

  get free(): number {
    return this.capacity - this.#used;
  }

  /**
   * Resolves with how many slots it took: as many as are free beyond `leave`, up to `want`, once at
   * least `least` (at most the capacity) are. `leave` keeps slots for those who come after it (a
   * backfill chunk leaves a few to a webhook's account).
   */
  take(want: number, priority: number, least = 1, leave = 0): Promise<number> {
    const n = Math.max(1, Math.floor(want));
    const kept = Math.max(0, Math.min(Math.floor(leave), this.capacity - 1));
    const min = Math.max(1, Math.min(n, Math.floor(least), this.capacity - kept));
    const waiter = { want: n, least: min, leave: kept, priority, seq: this.#seq++ };
    if (!this.#waiters.length && this.free - kept >= min) return Promise.resolve(this.#grant(waiter));
    return new Promise((grant) => {
      this.#waiters.push({ ...waiter, grant });
      this.#waiters.sort((a, b) => a.priority - b.priority || a.seq - b.seq);
      // It may go ahead of the waiters at once: a webhook's account while a chunk waits for half the
      // slots takes one of those free now, not after the next account ends (seconds at the
      // provider's pace, when a chunk's group ends together).
      this.#serve();
    });
  }

  release(n = 1): void {
    this.#used = Math.max(0, this.#used - n);
    this.#serve();
  }

  /** Grants the waiters in order while the first one's `least` is free (beyond what it leaves). */
  #serve(): void {
    for (let next = this.#waiters[0]; next && this.free - next.leave >= next.least; next = this.#waiters[0]) {
      this.#waiters.shift();
      next.grant(this.#grant(next));
    }
  }

  #grant(w: Pick<Waiter, 'want' | 'leave'>): number {
    const n = Math.min(w.want, this.free - w.leave);
    this.#used += n;
    return n;
  }
}
