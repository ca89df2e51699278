// A group of accounts that run side by side (a backfill chunk's) and reach the batch channels
// together: each account's CRM call waits at the gate until every account of the group still running
// waits there too (or has finished), then they all leave in one tick — one read batch for the group, one
// write batch, one note batch — instead of trickling in as each account's Buyer Intelligence calls
// end. A straggler (a slow search, an upstream retry) holds the others at most `maxWaitMs` after the
// first began waiting; it leaves with the next round. Only the CRM calls wait, so the group cannot
// deadlock: an account not at the gate is doing something that ends on its own.

/** How long the accounts at the gate wait for the rest of their group, at most. */
export const LOCKSTEP_MAX_WAIT_MS = 100;

export class Lockstep {
  readonly #maxWaitMs: number;
  /** Accounts of the group not finished yet. */
  #running = new Set<string>();
  /** Accounts waiting at the gate, with their calls. */
  #waiting = new Map<string, (() => void)[]>();
  #checking = false;
  #since = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(accountIds: Iterable<string>, maxWaitMs = LOCKSTEP_MAX_WAIT_MS) {
    for (const id of accountIds) this.#running.add(id);
    this.#maxWaitMs = maxWaitMs;
  }

  /** Runs the account's call once the whole group is at the gate (or the wait is over). */
  async gate<T>(accountId: string, call: () => Promise<T>): Promise<T> {
    if (!this.#running.has(accountId)) return call();
    await new Promise<void>((go) => {
      if (!this.#waiting.size) this.#since = Date.now();
      this.#waiting.set(accountId, [...(this.#waiting.get(accountId) ?? []), go]);
      this.#release();
    });
    return call();
  }

  /** The account finished (or failed): the others no longer wait for it. */
  leave(accountId: string): void {
    if (this.#running.delete(accountId)) this.#release();
  }

  /** Looks once the current tick is over: an account's calls made in one go (its notes) wait together. */
  #release(): void {
    if (this.#checking) return;
    this.#checking = true;
    queueMicrotask(() => {
      this.#checking = false;
      this.#go();
    });
  }

  #go(): void {
    if (!this.#waiting.size) return;
    const left = this.#since + this.#maxWaitMs - Date.now();
    if (this.#waiting.size < this.#running.size && left > 0) {
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#go();
      }, left);
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const calls of waiting) for (const go of calls) go();
  }
}
