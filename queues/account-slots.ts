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
   * Resolves with how many slots it took: as many as are free, up to `want`, once at least `least`
   * (at most the capacity) are.
   */
  take(want: number, priority: number, least = 1): Promise<number> {
    const n = Math.max(1, Math.floor(want));
    const min = Math.max(1, Math.min(n, Math.floor(least), this.capacity));
    if (!this.#waiters.length && this.free >= min) return Promise.resolve(this.#grant(n));
    return new Promise((grant) => {
      this.#waiters.push({ want: n, least: min, priority, seq: this.#seq++, grant });
      this.#waiters.sort((a, b) => a.priority - b.priority || a.seq - b.seq);
    });
  }

  release(n = 1): void {
    this.#used = Math.max(0, this.#used - n);
    for (let next = this.#waiters[0]; next && this.free >= next.least; next = this.#waiters[0]) {
      this.#waiters.shift();
      next.grant(this.#grant(next.want));
    }
  }

  #grant(want: number): number {
    const n = Math.min(want, this.free);
    this.#used += n;
    return n;
  }
}
