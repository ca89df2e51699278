// The accounts whose first search is waiting, by state, so that the pool may still answer them. A
// search waits for its slot in the provider's pace, seconds behind a chunk's accounts at 10 requests/s,
// while the searches ahead of it fill the pool (answer-pool.ts). Asked only before searching, every
// account of the chunks in flight searched: with 4 workers, where every chunk of a 500-account backfill
// is in flight at once, 492 searches were made where one worker, two chunks at a time, made 448 (bench,
// issue #42). So each answer that lands asks the pool again for the accounts of its state still
// waiting, by the same rule as before they searched (resolver.ts #fromPool), and one that matches gives
// its search up: the pace's queue and the cache's call let it go (src/buyer-intel/cache.ts, Flight),
// and the account takes the pool's match. In process; the answers of other workers come in through
// the shared pool's feed (shared-pool.ts), as before a search.
import type { MatchDecision } from './types.ts';

/** One account's first search, watched while it waits. */
export interface WaitingSearch {
  /** Aborts the search once the pool answered the account. */
  readonly signal: AbortSignal;
  /** The pool's match, once it answered (the search was then given up). */
  readonly answer: MatchDecision | null;
  /** The search ended: no longer watched. */
  stop(): void;
}

interface Entry {
  check: () => MatchDecision | null;
  controller: AbortController;
  answer: MatchDecision | null;
}

export class PoolWaiters {
  readonly #byState = new Map<string, Set<Entry>>();

  /** Whether any search is waiting (the feed is read for them while so). */
  get waiting(): boolean {
    return this.#byState.size > 0;
  }

  /** Watches an account of `state` whose search is about to go; `check` asks the pool for it. */
  watch(state: string, check: () => MatchDecision | null): WaitingSearch {
    const key = state.toUpperCase();
    const entry: Entry = { check, controller: new AbortController(), answer: null };
    const set = this.#byState.get(key) ?? new Set<Entry>();
    this.#byState.set(key, set);
    set.add(entry);
    const stop = () => {
      set.delete(entry);
      if (!set.size && this.#byState.get(key) === set) this.#byState.delete(key);
    };
    return {
      signal: entry.controller.signal,
      get answer() {
        return entry.answer;
      },
      stop,
    };
  }

  /** The pool gained buyers of `state`: its waiting accounts are asked again. */
  grew(state: string): void {
    const set = this.#byState.get(state.toUpperCase());
    if (!set) return;
    for (const entry of [...set]) {
      let answer: MatchDecision | null;
      try {
        answer = entry.check();
      } catch {
        // Asking again failed: this account's search goes on as if it had not been asked, and the
        // answer that landed still reaches the account whose search it was.
        answer = null;
      }
      if (!answer) continue;
      entry.answer = answer;
      set.delete(entry);
      entry.controller.abort();
    }
    if (!set.size) this.#byState.delete(state.toUpperCase());
  }
}
