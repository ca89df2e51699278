// A group of accounts that run side by side (a backfill chunk's) and reach the batch channels
// together: each account's CRM call waits at the gate until every account of the group still running
// waits there too (or has finished), then they all leave in one tick — one read batch for the group, one
// write batch, one note batch — instead of trickling in as each account's Buyer Intelligence calls
// end. A straggler (a slow search, an upstream retry) holds the others at most `maxWaitMs` after the
// first began waiting; it leaves with the next round. Only the CRM calls wait, so the group cannot
// deadlock: an account not at the gate is doing something that ends on its own.
//
// Calls name their step in the account's flow (read, note check, field write with notes, marks). When
// the whole group waits, only the earliest step leaves: the accounts one step behind then catch up,
// so a step's calls leave as one batch instead of being split by where each account happened to be.

/**
 * How long the accounts at the gate wait for the rest of their group, at most: long enough for the
 * accounts that make a few more Buyer Intelligence calls than the others (a new buyer: three calls of
 * ~80–100 ms) to catch up. At 100 ms the bench's backfill made 0.114 CRM calls per account, at 400 ms
 * 0.097, at a cost within the run-to-run noise of its throughput.
 */
export const LOCKSTEP_MAX_WAIT_MS = 400;

interface Waiting {
  step: number;
  go: () => void;
}

export class Lockstep {
  readonly #maxWaitMs: number;
  /** Accounts of the group not finished yet. */
  #running = new Set<string>();
  /** Accounts waiting at the gate, with their calls. */
  #waiting = new Map<string, Waiting[]>();
  #checking = false;
  #since = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(accountIds: Iterable<string>, maxWaitMs = LOCKSTEP_MAX_WAIT_MS) {
    for (const id of accountIds) this.#running.add(id);
    this.#maxWaitMs = maxWaitMs;
  }

  /** Runs the account's call once the whole group is at the gate (or the wait is over). */
  async gate<T>(accountId: string, call: () => Promise<T>, step = 0): Promise<T> {
    if (!this.#running.has(accountId)) return call();
    await new Promise<void>((go) => {
      if (!this.#waiting.size) this.#since = Date.now();
      this.#waiting.set(accountId, [...(this.#waiting.get(accountId) ?? []), { step, go }]);
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
    const everyone = this.#waiting.size >= this.#running.size;
    if (!everyone && left > 0) {
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#go();
      }, left);
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    // The wait is over: everyone at the gate leaves. Otherwise the earliest step, and the accounts at
    // later steps wait (afresh) for those to catch up.
    const first = everyone
      ? Math.min(...[...this.#waiting.values()].flatMap((calls) => calls.map((c) => c.step)))
      : Number.POSITIVE_INFINITY;
    const leaving: Waiting[] = [];
    for (const [accountId, calls] of this.#waiting) {
      if (calls.some((c) => c.step > first)) continue;
      this.#waiting.delete(accountId);
      leaving.push(...calls);
    }
    if (this.#waiting.size) this.#since = Date.now();
    for (const call of leaving) call.go();
  }
}
