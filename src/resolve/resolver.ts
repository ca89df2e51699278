// Size: the resolution steps (cache, search, candidates, decision) in their order; each step is short.
// Resolves a CRM account to a buyer of the Buyer Intelligence API, explainably: a pinned buyer id wins;
// then a cached match; then one quick search (a second one only when the first finds nothing that
// shares a word with the name), every result scored by `scoreCandidate`, and a decision — matched,
// needs review (with the candidates and their scores) or no match — with one human sentence saying why.
import type { Redis } from 'ioredis';
import type { BuyerIntelClient } from '../buyer-intel/client.ts';
import type { BuyerBrief } from '../buyer-intel/schemas.ts';
import { findState, type StateEntry } from '../buyer-intel/states.ts';
import { type IdMatchClient, IdMatcher } from './by-id.ts';
import { carriesIds } from './ids.ts';
import { fallbackQuery, foldText, type NormalizedName, normalizeName } from './normalize.ts';
import { resolveWeights, type ScoreResult, type ScoreSignal, scoreCandidate, type Weights } from './score.ts';

export type { ScoreSignal, SignalKind, Weights } from './score.ts';
export { DEFAULT_WEIGHTS } from './score.ts';

export interface AccountForMatching {
  id: string;
  name: string | null;
  state: string | null;
  city?: string | null;
  website: string | null;
  emailDomains?: string[];
  pinnedBuyerId?: string | null;
  /**
   * Registry ids the account carries, as text (an NCES id keeps its leading zeros): NCES, IPEDS, Census
   * (PID6 or GID) and a buyer id a person typed in a CRM field. They decide before the name (by-id.ts).
   */
  ids?: { nces?: string; ipeds?: string; census?: string; buyer?: string };
}

export interface ScoredCandidate {
  buyerId: string;
  name: string;
  stateCode: string | null;
  type: string | null;
  url: string | null;
  score: number;
  signals: ScoreSignal[];
}

export type MatchDecision =
  | {
      status: 'matched';
      buyerId: string;
      buyerName: string | null;
      confidence: number;
      /** `id`: by an id the account carries (by-id.ts); `pinned`: by our own buyer id field or a confirm. */
      source: 'pinned' | 'search' | 'cache' | 'id';
      explanation: string;
      candidates: ScoredCandidate[];
    }
  | { status: 'needs_review'; confidence: number; explanation: string; candidates: ScoredCandidate[] }
  | { status: 'no_match'; explanation: string; candidates: ScoredCandidate[] };

export interface MatchCache {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
}

export interface ResolverOptions {
  /** A candidate is matched only from this score up. Default 0.75. */
  acceptThreshold: number;
  /** A runner-up within this of the best makes it needs_review (unless the website tells them apart). Default 0.1. */
  ambiguityMargin: number;
  /** Results asked of each search. Default 10. */
  searchLimit: number;
  /** How long a match stays cached. Default 7 days. */
  cacheTtlSeconds: number;
  weights?: Partial<Weights>;
}

export const DEFAULT_RESOLVER_OPTIONS: Readonly<ResolverOptions> = Object.freeze({
  acceptThreshold: 0.75,
  ambiguityMargin: 0.1,
  searchLimit: 10,
  cacheTtlSeconds: 7 * 24 * 60 * 60,
});

/** At most this many candidates are listed in a decision. */
const MAX_LISTED = 5;

/** `SET prefix+key value EX ttl` / `GET prefix+key`. */
export function redisMatchCache(redis: Redis, prefix: string): MatchCache {
  return {
    get: (key) => redis.get(`${prefix}${key}`),
    async set(key, value, ttlSeconds) {
      await redis.set(`${prefix}${key}`, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
    },
  };
}

interface Scored {
  candidate: ScoredCandidate;
  result: ScoreResult;
  /** Position in the search results: the tie-break. */
  rank: number;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;
const shown = (c: ScoredCandidate): string => `"${c.name}" (${c.stateCode ?? '?'})`;
const fixed = (n: number): string => n.toFixed(2);

function resolveOptions(options: Partial<ResolverOptions> = {}): ResolverOptions & { weights: Weights } {
  const pick = <K extends 'acceptThreshold' | 'ambiguityMargin' | 'searchLimit' | 'cacheTtlSeconds'>(
    key: K,
  ) => options[key] ?? DEFAULT_RESOLVER_OPTIONS[key];
  const resolved = {
    acceptThreshold: pick('acceptThreshold'),
    ambiguityMargin: pick('ambiguityMargin'),
    searchLimit: pick('searchLimit'),
    cacheTtlSeconds: pick('cacheTtlSeconds'),
    weights: resolveWeights(options.weights),
  };
  if (!(resolved.acceptThreshold > 0 && resolved.acceptThreshold <= 1))
    throw new RangeError('acceptThreshold must be in (0, 1]');
  if (!(resolved.ambiguityMargin >= 0 && resolved.ambiguityMargin < 1))
    throw new RangeError('ambiguityMargin must be in [0, 1)');
  if (!(Number.isInteger(resolved.searchLimit) && resolved.searchLimit >= 1 && resolved.searchLimit <= 100))
    throw new RangeError('searchLimit must be an integer in 1..100');
  if (!(resolved.cacheTtlSeconds > 0)) throw new RangeError('cacheTtlSeconds must be positive');
  return resolved;
}

function parseCached(value: string | null): Extract<MatchDecision, { status: 'matched' }> | null {
  if (!value) return null;
  try {
    const parsed = JSON.parse(value) as Partial<Extract<MatchDecision, { status: 'matched' }>> | null;
    if (
      parsed?.status !== 'matched' ||
      typeof parsed.buyerId !== 'string' ||
      !parsed.buyerId ||
      typeof parsed.confidence !== 'number' ||
      typeof parsed.explanation !== 'string' ||
      !Array.isArray(parsed.candidates)
    )
      return null;
    return {
      status: 'matched',
      buyerId: parsed.buyerId,
      buyerName: typeof parsed.buyerName === 'string' ? parsed.buyerName : null,
      confidence: parsed.confidence,
      source: 'cache',
      explanation: parsed.explanation,
      candidates: parsed.candidates,
    };
  } catch {
    return null;
  }
}

/** A client without the attribute call cannot check ids: the accounts' ids are then not used. */
export type ResolverClient = Pick<BuyerIntelClient, 'searchBuyers'> & Partial<IdMatchClient>;

function canReadAttributes(client: ResolverClient): client is ResolverClient & IdMatchClient {
  return typeof client.getBuyerAttributesBulk === 'function';
}

export class Resolver {
  readonly #client: Pick<BuyerIntelClient, 'searchBuyers'>;
  readonly #cache: MatchCache | undefined;
  readonly #options: ResolverOptions & { weights: Weights };
  readonly #ids: IdMatcher | undefined;

  constructor(deps: { client: ResolverClient; cache?: MatchCache; options?: Partial<ResolverOptions> }) {
    this.#client = deps.client;
    this.#cache = deps.cache;
    this.#options = resolveOptions(deps.options);
    const client = deps.client;
    this.#ids = canReadAttributes(client)
      ? new IdMatcher(client, { searchLimit: this.#options.searchLimit })
      : undefined;
  }

  /**
   * Pinned id → the account's own ids (by-id.ts, which asks the name search for its view) → cached
   * match (when `cacheKey` is given) → search. Only matches found by search are cached, and an account
   * with ids uses no cache: a match made by name must not outlive an id typed since. The cache is an
   * optimisation: if it fails, the account is resolved by search instead.
   * Errors of the API (rate limits, outages) propagate, for the caller's queue to retry.
   */
  async resolve(account: AccountForMatching, cacheKey?: string): Promise<MatchDecision> {
    const pinned = account.pinnedBuyerId?.trim();
    if (pinned) {
      return {
        status: 'matched',
        buyerId: pinned,
        buyerName: null,
        confidence: 1,
        source: 'pinned',
        explanation: `Pinned to buyer ${pinned} by the account's buyer id property; no search made`,
        candidates: [],
      };
    }
    if (this.#ids && carriesIds(account.ids)) return this.#ids.resolve(account, () => this.#search(account));
    const key = cacheKey?.trim() ? cacheKey : undefined;
    if (key && this.#cache) {
      const cached = parseCached(await this.#cache.get(key).catch(() => null));
      if (cached) return cached;
    }
    const decision = await this.#search(account);
    if (key && this.#cache && decision.status === 'matched') {
      await this.#cache
        .set(key, JSON.stringify(decision), this.#options.cacheTtlSeconds)
        .catch(() => undefined);
    }
    return decision;
  }

  async #search(account: AccountForMatching): Promise<MatchDecision> {
    const given = account.name?.trim();
    if (!given) {
      return {
        status: 'no_match',
        explanation: 'No match: the account has no name to search by',
        candidates: [],
      };
    }
    let name = normalizeName(given);
    // A name of type words only ("Police Department") takes its place from the account's city.
    const city = account.city?.trim();
    if (!name.core.length && city) {
      const withCity = normalizeName(`${city} ${name.searchName}`);
      name = { ...withCity, stateCode: name.stateCode };
    }
    const givenState = account.state?.trim() || null;
    const state: StateEntry | undefined =
      (givenState ? findState(givenState) : undefined) ??
      (name.stateCode ? findState(name.stateCode) : undefined);
    const where = state ? ` in ${state.code}` : '';

    const query = name.searchName;
    let buyers = await this.#find(query, state);
    let scored = this.#score(account, name, buyers);
    let related = scored.filter(isRelated);
    let searched = `"${query}"${where}`;
    if (!related.length) {
      const retry = fallbackQuery(name);
      if (retry && foldText(retry) !== foldText(query)) {
        buyers = await this.#find(retry, state);
        scored = this.#score(account, name, buyers);
        related = scored.filter(isRelated);
        searched = `"${query}" and "${retry}"${where}`;
      }
    }
    return this.#decide(given, name, related, buyers.length, searched, state);
  }

  #find(buyerName: string, state: StateEntry | undefined): Promise<BuyerBrief[]> {
    return this.#client
      .searchBuyers({
        buyerName,
        limit: this.#options.searchLimit,
        ...(state ? { buyerStateCode: state.code } : {}),
      })
      .then((r) => r.buyers);
  }

  #score(account: AccountForMatching, name: NormalizedName, buyers: readonly BuyerBrief[]): Scored[] {
    const scored = buyers.map((buyer, rank): Scored => {
      const result = scoreCandidate(
        { name, state: account.state, website: account.website, emailDomains: account.emailDomains ?? null },
        buyer,
        this.#options.weights,
      );
      return {
        rank,
        result,
        candidate: {
          buyerId: buyer.id,
          name: buyer.name,
          stateCode: buyer.stateCode ?? null,
          type: buyer.type ?? null,
          url: buyer.url ?? null,
          score: result.score,
          signals: result.signals,
        },
      };
    });
    return scored.sort((a, b) => b.result.score - a.result.score || a.rank - b.rank);
  }

  #decide(
    given: string,
    name: NormalizedName,
    related: readonly Scored[],
    found: number,
    searched: string,
    state: StateEntry | undefined,
  ): MatchDecision {
    const { acceptThreshold, ambiguityMargin } = this.#options;
    const eligible = related.filter((s) => !s.result.disqualified);
    const listed = (list: readonly Scored[]) => list.slice(0, MAX_LISTED).map((s) => s.candidate);

    const best = eligible[0];
    if (!best) {
      if (related.length) {
        const others = [...new Set(related.map((s) => s.candidate.stateCode ?? '?'))].join(', ');
        return {
          status: 'no_match',
          explanation: `No match for "${given}": ${related.length} buyer${related.length === 1 ? '' : 's'} with a similar name, but in ${others}, not ${state?.code ?? name.stateCode ?? 'the account’s state'}`,
          candidates: listed(related),
        };
      }
      return {
        status: 'no_match',
        explanation:
          found > 0
            ? `No match for "${given}": searching ${searched} returned ${found} buyer${found === 1 ? '' : 's'}, none sharing a word of the name`
            : `No match for "${given}": searching ${searched} found no buyer`,
        candidates: [],
      };
    }

    const close = eligible
      .slice(1)
      .filter((s) => round3(best.result.score - s.result.score) < ambiguityMargin);
    const websiteDecides =
      close.length > 0 &&
      best.result.webPoints > 0 &&
      close.every((s) => s.result.webPoints < best.result.webPoints);
    const why = best.result.reasons.join(', ');

    if (best.result.score >= acceptThreshold && (close.length === 0 || websiteDecides)) {
      const next = eligible[1];
      const tail = websiteDecides
        ? `; the website tells it from ${close.map((s) => shown(s.candidate)).join(', ')}`
        : next
          ? `; next best ${shown(next.candidate)} at ${fixed(next.result.score)}`
          : '';
      return {
        status: 'matched',
        buyerId: best.candidate.buyerId,
        buyerName: best.candidate.name,
        confidence: best.result.score,
        source: 'search',
        explanation: `Matched ${shown(best.candidate)} with ${fixed(best.result.score)}: ${why}${tail}`,
        candidates: listed(eligible),
      };
    }

    const candidates = listed(eligible);
    let explanation: string;
    if (best.result.score < acceptThreshold) {
      explanation = `Needs review: the best candidate ${shown(best.candidate)} scores ${fixed(best.result.score)}, below the ${fixed(acceptThreshold)} needed (${why})`;
      if (close.length)
        explanation += `, and ${close.length} other${close.length === 1 ? '' : 's'} score within ${ambiguityMargin}`;
    } else {
      const rivals = close
        .slice(0, MAX_LISTED - 1)
        .map((s) => `${shown(s.candidate)} ${fixed(s.result.score)}`);
      const hint = name.typeHint ? '' : `; "${given}" does not say which kind of buyer it is`;
      explanation = `Needs review: ${shown(best.candidate)} scores ${fixed(best.result.score)} (${why}), but ${rivals.join(', ')}${close.length > rivals.length ? ` and ${close.length - rivals.length} more` : ''} ${close.length === 1 ? 'is' : 'are'} within ${ambiguityMargin}${hint}`;
    }
    return { status: 'needs_review', confidence: best.result.score, explanation, candidates };
  }
}

/** A search result worth considering: it shares a word of the name, or the account's web address. */
function isRelated(s: Scored): boolean {
  return s.result.nameSimilarity > 0 || (s.result.webPoints > 0 && s.result.web !== 'mismatch');
}
