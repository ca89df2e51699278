// A group of accounts that run side by side (a backfill chunk's) and reach the batch channels
// together: each account's CRM call waits at the gate until every account of the group still running
// waits there too (or has finished), then they all leave in one tick — one read batch for the group, one
// write batch, one note batch — instead of trickling in as each account's Buyer Intelligence calls
// end. Only the CRM calls wait, so the group cannot deadlock: an account not at the gate is doing
// something that ends on its own.
//
// How long the accounts at the gate wait for the rest depends on where they come from:
// - From the paced work (the Buyer Intelligence calls after the read: `pacedAfter`), accounts arrive
//   at the provider's pace — ~100/s with its limit lifted, ~4/s at its real 10 requests/s. They wait
//   for the rest of the group as long as the rest is expected to take (the observed time between two
//   arrivals × the accounts still to come), at least `maxWaitMs` (a straggler: a slow search, a retry)
//   and at most `gatherMs`: a slow stream waits longer to fill a batch, so a batch carries about the
//   same number of accounts whatever the pace, and its costs (a CRM call, its history statements, the
//   outcomes' statement, Redis round trips) are paid per account rather than per second.
// - From a quick call of their own (the write, the record: one CRM or store call that the accounts
//   released together make together), the accounts that left together come back together: they wait
//   only for the others still in such a call (at most `maxWaitMs`), never for the paced ones.
//
// Calls name their step in the account's flow (read, note check, field write with notes, marks). When
// the whole group waits, only the earliest step leaves: the accounts one step behind then catch up,
// so a step's calls leave as one batch instead of being split by where each account happened to be.

/**
 * How long a quick call's accounts wait for the others of their round, and the least a paced one
 * waits: long enough for the accounts that make a few more Buyer Intelligence calls than the others (a
 * new buyer: three calls of ~80–100 ms) to catch up. At 100 ms the bench's backfill made 0.114 CRM
 * calls per account, at 400 ms 0.097, at a cost within the run-to-run noise of its throughput.
 */
export const LOCKSTEP_MAX_WAIT_MS = 400;

/**
 * The most a backfill chunk's account coming out of its Buyer Intelligence calls waits for the others
 * of its group, by default (BACKFILL_BATCH_WAIT_MS): nobody waits on one account of a backfill (a
 * person waiting on one account asks for it by a webhook or the API, a job of its own that never waits
 * here), and the run's end moves by at most this much. At 10 requests/s (~5 accounts/s) 10 s fills a
 * write batch with ~50 accounts: 0.09 CRM calls per account, against 0.13 at 2 s (bench/README.md).
 */
export const LOCKSTEP_GATHER_MS = 10_000;

/**
 * The groups of one process whose paced rounds leave together. A worker runs a chunk's groups side by
 * side (two of 100 at its 200 slots) and they write through the same batch channels: a round that
 * leaves when its wait is over takes the other groups' waiting paced accounts with it, so the process
 * sends one write batch per window instead of one per group, at no added wait.
 */
export class Departures {
  readonly #groups = new Set<Lockstep>();

  join(group: Lockstep): void {
    this.#groups.add(group);
  }

  part(group: Lockstep): void {
    this.#groups.delete(group);
  }

  /** `from`'s paced round is leaving: so do the others'. */
  depart(from: Lockstep): void {
    for (const group of this.#groups) if (group !== from) group.departPaced();
  }
}

export interface LockstepOptions {
  /** The most a quick call's account waits, and the least a paced one does (up to `gatherMs`), ms. */
  maxWaitMs?: number;
  /** The most a paced arrival waits for the rest of its group (ms). Default `maxWaitMs`. */
  gatherMs?: number;
  /** An account's calls after its gate at this step or an earlier one are paced. Default: none are. */
  pacedAfter?: number;
  /** The process's groups whose paced rounds leave together. */
  departures?: Departures;
  /** Test seam for the clock the arrivals are timed by. */
  now?: () => number;
}

interface Waiting {
  step: number;
  go: () => void;
}

interface Arrival {
  calls: Waiting[];
  /** It came from the paced work, and when. */
  paced: boolean;
  at: number;
}

export class Lockstep {
  readonly #maxWaitMs: number;
  readonly #gatherMs: number;
  readonly #pacedAfter: number;
  readonly #now: () => number;
  readonly #departures: Departures | undefined;
  /** Another group's paced round left: this one's leaves at the next look. */
  #departing = false;
  /** Accounts of the group not finished yet. */
  #running = new Set<string>();
  /** Accounts waiting at the gate, with their calls. */
  #waiting = new Map<string, Arrival>();
  /** The step of each account's last gate (none before its first). */
  #passed = new Map<string, number>();
  #checking = false;
  /** When the quick calls' accounts at the gate began waiting (afresh after a round left). */
  #since = 0;
  /** The time between two paced arrivals, smoothed; the group's start until the first. */
  #gapMs: number | undefined;
  #lastPaced: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(accountIds: Iterable<string>, options: LockstepOptions | number = {}) {
    const o = typeof options === 'number' ? { maxWaitMs: options } : options;
    for (const id of accountIds) this.#running.add(id);
    this.#maxWaitMs = o.maxWaitMs ?? LOCKSTEP_MAX_WAIT_MS;
    this.#gatherMs = o.gatherMs ?? this.#maxWaitMs;
    this.#pacedAfter = o.pacedAfter ?? Number.NEGATIVE_INFINITY;
    this.#now = o.now ?? Date.now;
    this.#lastPaced = this.#now();
    this.#departures = o.departures;
    // Until its last account leaves (a group of none never joins: nothing would take it out).
    if (this.#running.size) this.#departures?.join(this);
  }

  /** Another group's paced round is leaving: this group's paced accounts at the gate go with it. */
  departPaced(): void {
    if (![...this.#waiting.values()].some((a) => a.paced)) return;
    this.#departing = true;
    this.#go();
  }

  /** Runs the account's call once the whole group is at the gate (or the wait is over). */
  async gate<T>(accountId: string, call: () => Promise<T>, step = 0): Promise<T> {
    if (!this.#running.has(accountId)) return call();
    await new Promise<void>((go) => {
      const now = this.#now();
      let arrival = this.#waiting.get(accountId);
      if (!arrival) {
        const last = this.#passed.get(accountId);
        arrival = { calls: [], paced: last !== undefined && last <= this.#pacedAfter, at: now };
        if (arrival.paced) this.#arrivedPaced(now);
        else if (![...this.#waiting.values()].some((a) => !a.paced)) this.#since = now;
        this.#waiting.set(accountId, arrival);
      }
      arrival.calls.push({ step, go });
      this.#release();
    });
    return call();
  }

  /** The account finished (or failed): the others no longer wait for it. */
  leave(accountId: string): void {
    this.#passed.delete(accountId);
    if (!this.#running.delete(accountId)) return;
    if (!this.#running.size) this.#departures?.part(this);
    this.#release();
  }

  #arrivedPaced(now: number): void {
    const gap = now - this.#lastPaced;
    this.#lastPaced = now;
    // Accounts resumed by one answer arrive in one tick: that is one arrival of the stream.
    if (this.#gapMs === undefined) this.#gapMs = gap;
    else if (gap > 0) this.#gapMs = 0.8 * this.#gapMs + 0.2 * gap;
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

  /**
   * An account is expected back soon: it has not reached its first gate yet (the group starts
   * together), or it is in a quick call (it passed a gate after the paced work and is not at one now).
   */
  #expectedSoon(): boolean {
    for (const accountId of this.#running) {
      if (this.#waiting.has(accountId)) continue;
      const step = this.#passed.get(accountId);
      if (step === undefined || step > this.#pacedAfter) return true;
    }
    return false;
  }

  #go(): void {
    if (!this.#waiting.size) return;
    const now = this.#now();
    const waiting = [...this.#waiting];
    let leaving: [string, Arrival][];
    let departs = false;
    if (this.#waiting.size >= this.#running.size) {
      // Everyone waits: only the earliest step leaves; the accounts at later steps wait (afresh) for
      // those to catch up.
      const first = Math.min(...waiting.flatMap(([, a]) => a.calls.map((c) => c.step)));
      leaving = waiting.filter(([, a]) => !a.calls.some((c) => c.step > first));
    } else {
      const paced = waiting.filter(([, a]) => a.paced);
      const missing = this.#running.size - this.#waiting.size;
      // The rest of the group is expected within (time between arrivals × accounts to come) of the
      // last arrival; twice that for the stream's unevenness, between `least` and `gatherMs` from the
      // round's first paced arrival.
      const firstAt = paced.length ? Math.min(...paced.map(([, a]) => a.at)) : 0;
      const least = Math.min(this.#maxWaitMs, this.#gatherMs);
      const expected = this.#lastPaced + 2 * (this.#gapMs ?? 0) * missing;
      const pacedLeft = paced.length
        ? Math.min(firstAt + this.#gatherMs, Math.max(firstAt + least, expected)) - now
        : Number.POSITIVE_INFINITY;
      const quickLeft = this.#since + this.#maxWaitMs - now;
      if (pacedLeft <= 0 || this.#departing) {
        leaving = waiting;
        // Its own wait is over (not another group's): the other groups' paced rounds go with it.
        if (!this.#departing && paced.length) departs = true;
      } else if (quickLeft <= 0 || !this.#expectedSoon()) leaving = waiting.filter(([, a]) => !a.paced);
      else leaving = [];
      if (!leaving.length) {
        const left = Math.min(pacedLeft, quickLeft > 0 ? quickLeft : Number.POSITIVE_INFINITY);
        clearTimeout(this.#timer);
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#go();
        }, left);
        return;
      }
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const [accountId, arrival] of leaving) {
      this.#waiting.delete(accountId);
      this.#passed.set(accountId, Math.max(...arrival.calls.map((c) => c.step)));
    }
    if (this.#waiting.size) {
      if ([...this.#waiting.values()].some((a) => !a.paced)) this.#since = now;
      // Those still waiting are looked at again when their wait is over, even if nothing arrives.
      this.#release();
    }
    this.#departing = false;
    for (const [, arrival] of leaving) for (const call of arrival.calls) call.go();
    if (departs) this.#departures?.depart(this);
  }
}
