// A group of accounts that run side by side (a backfill chunk's) and reach the batch channels
// together: each account's CRM call waits at the gate until every account of the group still running
// waits there too (or has finished), then they all leave in one tick — one read batch for the group, one
// write batch, one note batch — instead of trickling in as each account's Buyer Intelligence calls
// end. Only the CRM calls wait, so the group cannot deadlock: an account not at the gate is doing
// something that ends on its own (an upstream call, the ledgers, the store).
export class Lockstep {
  /** Accounts of the group not finished yet. */
  #running = new Set<string>();
  /** Accounts waiting at the gate, with their calls. */
  #waiting = new Map<string, (() => void)[]>();
  #checking = false;

  constructor(accountIds: Iterable<string>) {
    for (const id of accountIds) this.#running.add(id);
  }

  /** Runs the account's call once the whole group is at the gate. */
  async gate<T>(accountId: string, call: () => Promise<T>): Promise<T> {
    if (!this.#running.has(accountId)) return call();
    await new Promise<void>((go) => {
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
    if (!this.#waiting.size || this.#waiting.size < this.#running.size) return;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const calls of waiting) for (const go of calls) go();
  }
}
