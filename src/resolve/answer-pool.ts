// The buyers this process's name searches found in each state, kept a few minutes by the words that
// name them: a run's accounts name neighbours — "Travis Co.", "Travis County Sheriff's Office", "Austin
// ISD" and "City of Austin" in TX — and one search's answer often holds the buyer another account
// names. Before an account searches, the kept buyers of its state whose names hold its place words
// are scored as a search's answer would be; only a plain match skips the search (resolver.ts: the name
// as written is the buyer's own, of the kind it says, in its state, no rival, nothing contradicting it,
// and the buyer ranked within the first `searchLimit` of an answer three times as long — so its
// namesakes, which any search ranks next to it, were in that answer too). Anything else searches as if
// nothing were kept. Held in process and shared by the tenants a worker serves; with a feed (shared-pool.ts)
// every worker of the install folds in the answers the others received.
import { LRUCache } from 'lru-cache';
import type { BuyerBrief } from '../buyer-intel/schemas.ts';
import { type NormalizedName, normalizeName } from './normalize.ts';

/** Words kept per process, state by state; the least recently used go first. */
const MAX_WORDS = 50_000;
/** Buyers kept per word of a state: a common word would otherwise hold the whole state. */
const MAX_PER_WORD = 40;

/** A kept buyer, and the best place it had in an answer. */
export interface Pooled {
  buyer: BuyerBrief;
  rank: number;
}

export class AnswerPool {
  readonly #byWord: LRUCache<string, Map<string, Pooled>>;

  constructor(ttlMs: number) {
    this.#byWord = new LRUCache({ max: MAX_WORDS, ttl: ttlMs, ttlResolution: 0 });
  }

  /**
   * Keeps an answer of a search limited to `stateCode`, in its order (buyers placed elsewhere aside);
   * returns what it kept, each buyer with its rank in the answer (for the other workers: shared-pool.ts).
   */
  add(stateCode: string, buyers: readonly BuyerBrief[]): Pooled[] {
    const state = stateCode.toUpperCase();
    const kept = buyers.flatMap((buyer, rank) =>
      buyer.stateCode?.toUpperCase() === state ? [{ buyer, rank }] : [],
    );
    this.addRanked(state, kept);
    return kept;
  }

  /** Keeps buyers of `stateCode` with their ranks in the answer that found them (another worker's). */
  addRanked(stateCode: string, pooled: readonly Pooled[]): void {
    const state = stateCode.toUpperCase();
    for (const { buyer, rank } of pooled) {
      if (buyer.stateCode?.toUpperCase() !== state) continue;
      for (const word of new Set(normalizeName(buyer.name).core)) {
        const key = `${state} ${word}`;
        const kept = this.#byWord.get(key) ?? new Map<string, Pooled>();
        const before = kept.get(buyer.id);
        kept.delete(buyer.id);
        kept.set(buyer.id, { buyer, rank: Math.min(rank, before?.rank ?? rank) });
        if (kept.size > MAX_PER_WORD) kept.delete(kept.keys().next().value as string);
        this.#byWord.set(key, kept);
      }
    }
  }

  /**
   * The kept buyers of the state whose names hold every place word of `name` (none: an empty list): a
   * buyer that lacks one cannot read as the name, nor come close to one that does.
   */
  candidates(stateCode: string, name: NormalizedName): Pooled[] {
    const state = stateCode.toUpperCase();
    const [first, ...rest] = [...new Set(name.core)];
    if (first === undefined) return [];
    const holds = (p: Pooled) => rest.every((w) => this.#byWord.get(`${state} ${w}`)?.has(p.buyer.id));
    return [...(this.#byWord.get(`${state} ${first}`)?.values() ?? [])].filter(holds);
  }
}
