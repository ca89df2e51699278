// Size: the resolution steps (pinned, ids, kept answers, searches, the attributes of a close decision) in their
// order; each step is short, and the decision itself is decide.ts.
// Resolves a CRM account to a buyer of the Buyer Intelligence API, explainably: a pinned buyer id wins;
// then the account's ids; then the candidates another account of the same name was just matched with
// (shared-answers.ts), when they match this one too; then the buyers this process's searches found in the
// account's state (answer-pool.ts), when they give a plain match; then at most three searches in the account's
// state, each asked only while no buyer is matched yet — the name (a known nickname written out), the
// buyers at the account's web address (where the API supports a search by criteria), then the name's
// canonical words or the web address's words, the name's other words skipped once its candidates read
// as it does — and one across states when those found nothing that reads as the name; every result
// scored by `scoreCandidate`, the candidates of a close decision scored again with their attributes
// (profiles.ts), and a decision — matched, needs review (with the candidates and their scores) or no
// match — with one human sentence saying why.
import type { Redis } from 'ioredis';
import { Batcher } from '../batch/batcher.ts';
import type { BuyerIntelClient } from '../buyer-intel/client.ts';
import type { BuyerBrief } from '../buyer-intel/schemas.ts';
import type { StateEntry } from '../buyer-intel/states.ts';
import { answeredAgainstContract, failureFacts } from '../shared/errors.ts';
import { AnswerPool } from './answer-pool.ts';
import { type IdMatchClient, IdMatcher } from './by-id.ts';
import { CriteriaSearch } from './criteria-search.ts';
import { decide, decisiveScore, type Scored } from './decide.ts';
import { parseWebAddress } from './domains.ts';
import { carriesIds } from './ids.ts';
import { fallbackQuery, foldText, type NormalizedName } from './normalize.ts';
import { PoolWaiters } from './pool-waiters.ts';
import { type Prepared, prepare } from './prepare.ts';
import { MAX_PROFILES, type ProfileClient, type Profiled, readProfile } from './profiles.ts';
import { domainQuery, initialsQuery, nicknameQuery, statesWrittenOut, typoQuery } from './queries.ts';
import { scoreCandidate } from './score.ts';
import { answerKey, type FoundBuyer, parseAnswer, serializeAnswer } from './shared-answers.ts';
import type { PoolFeed } from './shared-pool.ts';
import type { AccountForMatching, MatchDecision } from './types.ts';
import { resolveWeights, type Weights } from './weights.ts';

/** Where the candidates of a match are kept for the next account of the same name (shared-answers.ts). */
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
  /**
   * How long the candidates that matched one account are offered to the next whose name reads the same
   * (shared-answers.ts); 0 keeps none. Default 10 minutes.
   */
  sharedAnswerTtlSeconds: number;
  weights?: Partial<Weights>;
}

export const DEFAULT_RESOLVER_OPTIONS: Readonly<ResolverOptions> = Object.freeze({
  acceptThreshold: 0.75,
  ambiguityMargin: 0.1,
  searchLimit: 10,
  sharedAnswerTtlSeconds: 10 * 60,
});

/**
 * At most this many searches per account: three in the account's state (or without one), and one more
 * across states when those found nothing that reads as the name.
 */
export const MAX_SEARCHES = 4;

/** A search in a state asks the API for this many times `searchLimit` results, for the pool. */
const POOL_LIMIT_FACTOR = 3;

/**
 * What the resolver asks of the API. Without the criteria search, accounts are found by name only;
 * without the attribute call, their ids cannot be checked and are not used.
 */
export type ResolverClient = Pick<BuyerIntelClient, 'searchBuyers'> & Partial<IdMatchClient>;

/**
 * `SET prefix+key value EX ttl`; the reads of one moment (a chunk's accounts resolving together) in one
 * `MGET` (the keys share the prefix's hash tag: one slot on a Cluster).
 */
export function redisMatchCache(redis: Redis, prefix: string): MatchCache {
  const reads = new Batcher<string, string | null>({
    maxBatch: 500,
    send: (keys) => redis.mget(keys.map((key) => `${prefix}${key}`)),
  });
  return {
    get: (key) => reads.submit(key),
    async set(key, value, ttlSeconds) {
      await redis.set(`${prefix}${key}`, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
    },
  };
}

interface Found {
  buyer: BuyerBrief;
  rank: number | null;
  order: number;
  /** Its attributes, once read for a close decision (profiles.ts); null when the provider had none. */
  profiled?: Profiled | null;
  /** Found only among the buyers of this place (a name of kind words only): see `#findIn`. */
  localTo?: string;
  /** The name it is scored by, when not the account's: the rest after the place it was found by. */
  localName?: NormalizedName;
}

/** One search of the plan: what it asks, and whether its order is the API's relevance order. */
interface Search {
  shown: string;
  ranked: boolean;
  /** Asks for the account's name in other words (not for its web address): see `settledByName`. */
  rewritesName: boolean;
  /** Looks across states: the last search, with a place of its own in the budget. */
  anywhere?: boolean;
  /** Asks for the buyers of this place, not for a name. */
  localTo?: string;
  localName?: NormalizedName;
  /** The buyers found, or null when the search could not be made (then `called` says if it was tried). */
  run: (signal?: AbortSignal) => Promise<{ buyers: BuyerBrief[] | null; called: boolean }>;
}

function resolveOptions(options: Partial<ResolverOptions> = {}): ResolverOptions & { weights: Weights } {
  const pick = <K extends Exclude<keyof ResolverOptions, 'weights'>>(key: K) =>
    options[key] ?? DEFAULT_RESOLVER_OPTIONS[key];
  const resolved = {
    acceptThreshold: pick('acceptThreshold'),
    ambiguityMargin: pick('ambiguityMargin'),
    searchLimit: pick('searchLimit'),
    sharedAnswerTtlSeconds: pick('sharedAnswerTtlSeconds'),
    weights: resolveWeights(options.weights),
  };
  if (!(resolved.acceptThreshold > 0 && resolved.acceptThreshold <= 1))
    throw new RangeError('acceptThreshold must be in (0, 1]');
  if (!(resolved.ambiguityMargin >= 0 && resolved.ambiguityMargin < 1))
    throw new RangeError('ambiguityMargin must be in [0, 1)');
  if (!(Number.isInteger(resolved.searchLimit) && resolved.searchLimit >= 1 && resolved.searchLimit <= 100))
    throw new RangeError('searchLimit must be an integer in 1..100');
  if (!(resolved.sharedAnswerTtlSeconds >= 0))
    throw new RangeError('sharedAnswerTtlSeconds must be zero or positive');
  return resolved;
}

function canReadAttributes(client: ResolverClient): client is ResolverClient & IdMatchClient {
  return typeof client.getBuyerAttributesBulk === 'function';
}

/**
 * Answers of a server whose criteria search does not take a web address in the shape we guess: ask it
 * no more. (One without the operation at all — 404, 405, 501 — is criteria-search.ts's to learn.) An
 * answer that breaks the contract is one too: the server answered, in a shape not ours.
 */
const UNSUPPORTED_STATUSES = new Set([400, 403, 415, 422]);
function criteriaUnsupported(err: unknown): boolean {
  const facts = failureFacts(err);
  if (!facts) return false;
  return answeredAgainstContract(facts) || UNSUPPORTED_STATUSES.has(facts.status ?? 0);
}
/**
 * Before the criteria search has ever answered, another failure (a 500 from a route the server does
 * not have) skips it for the account; this many in a row and it is taken as unsupported. A refused
 * token or a rate limit is the whole API's: those propagate.
 */
const CRITERIA_FAILURES_BEFORE_GIVING_UP = 3;
function sharedFailure(err: unknown): boolean {
  const status = failureFacts(err)?.status;
  return status === 401 || status === 429;
}

export class Resolver {
  readonly #client: ResolverClient;
  readonly #cache: MatchCache | undefined;
  readonly #options: ResolverOptions & { weights: Weights };
  readonly #ids: IdMatcher | undefined;
  readonly #profiles: ProfileClient | undefined;
  /** The buyers this process's searches found, by state and word (answer-pool.ts); none with a TTL of 0. */
  readonly #pool: AnswerPool | undefined;
  /** Whether the API has a criteria search at all: learnt once, shared with the id lookups. */
  readonly #criteriaSearch: CriteriaSearch;
  /** Whether it answers one by web address; learnt on the first try, kept for the process. */
  #criteria: 'unknown' | 'supported' | 'unsupported' = 'unknown';
  /** The pool's answers exchanged with the install's other workers (shared-pool.ts); none without a pool. */
  readonly #feed: PoolFeed | undefined;
  /** The accounts whose first search waits, for the pool to answer them first (pool-waiters.ts). */
  readonly #waiters = new PoolWaiters();
  /** The feed's read in flight: the accounts that wait on it together fold its answers once. */
  #reading: Promise<boolean> | null = null;
  #criteriaFailures = 0;
  /** Whether the criteria search takes a city: refused once, not asked again in this process. */
  #byPlace: 'unknown' | 'unsupported' = 'unknown';

  constructor(deps: {
    client: ResolverClient;
    cache?: MatchCache;
    /** Shares the pool's answers with the install's other workers. */
    poolFeed?: PoolFeed;
    options?: Partial<ResolverOptions>;
  }) {
    this.#client = deps.client;
    this.#cache = deps.cache;
    this.#options = resolveOptions(deps.options);
    const client = deps.client;
    this.#criteriaSearch = new CriteriaSearch(client);
    this.#ids = canReadAttributes(client)
      ? new IdMatcher(client, { searchLimit: this.#options.searchLimit }, this.#criteriaSearch)
      : undefined;
    this.#profiles = canReadAttributes(client) ? client : undefined;
    const poolTtl = this.#options.sharedAnswerTtlSeconds;
    this.#pool = poolTtl > 0 ? new AnswerPool(poolTtl * 1000) : undefined;
    this.#feed = this.#pool ? deps.poolFeed : undefined;
  }

  /**
   * Pinned id → the account's own ids (by-id.ts, which asks the name search for its view) → search.
   * No decision is kept per account: the next resolve reads the account as it is then (a pin written
   * since, a name a person corrected), and repeats cost no upstream call through the searches' cache.
   * The candidates another account of the same name was matched with are read first
   * (shared-answers.ts); if that read fails, the account searches as if nothing were kept.
   * Errors of the API (rate limits, outages) propagate, for the caller's queue to retry.
   */
  async resolve(account: AccountForMatching): Promise<MatchDecision> {
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
    if (this.#ids && carriesIds(account.ids))
      return this.#ids.resolve(account, () => {
        const prepared = prepare(account);
        return 'status' in prepared ? Promise.resolve(prepared) : this.#search(prepared);
      });
    const prepared = prepare(account);
    if ('status' in prepared) return prepared;
    const shareKey =
      this.#cache && this.#options.sharedAnswerTtlSeconds > 0 && prepared.name
        ? (answerKey(prepared.name, prepared.state?.code ?? null, this.#options.searchLimit) ?? undefined)
        : undefined;
    if (!shareKey || !this.#cache) return this.#search(prepared);
    const kept = await this.#cache.get(shareKey).catch(() => null);
    return this.#search(prepared, { key: shareKey, answer: parseAnswer(kept) });
  }

  async #search(p: Prepared, share?: { key: string; answer: FoundBuyer[] | null }): Promise<MatchDecision> {
    const { given, website, name, givenState, state } = p;
    const scoring = { ...p.account, website };
    const label = given ?? website ?? '';
    // decide.ts makes a name in a company's legal form no match unless a buyer found has the account's
    // web address or email domain: without either, no search can change that.
    if (name?.company && !website && !p.account.emailDomains?.length) {
      return {
        status: 'no_match',
        explanation: `No match for "${label}": "${name.company}" is a company's legal form, and the account has no web address or email domain that could be a buyer's; no search made`,
        candidates: [],
      };
    }
    // Without a feed nothing is awaited: the accounts in flight interleave (and the pool fills) as before.
    const pooled = this.#fromPool(p) ?? (this.#feed && poolable(p) ? await this.#fromSharedPool(p) : null);
    if (pooled) return pooled;
    if (share?.answer) {
      const kept = share.answer.map((f, order) => ({ ...f, order }));
      const decision = this.#decide(p, this.#score(scoring, name, kept, p.placed), kept.length, []);
      if (decision.status === 'matched') return decision;
    }

    const found = new Map<string, Found>();
    const asked: string[] = [];
    let calls = 0;
    let scored: Scored[] = [];
    let decision: MatchDecision | null = null;
    let nameSettled = false;
    // The state-limited searches found a buyer that reads as the name: no need to look across states.
    const convincing = () =>
      scored.some((s) => s.result.related && !s.result.otherState && s.result.nameSimilarity >= 0.8);
    const decideNow = () => this.#decide(p, scored, found.size, asked);
    const take = (search: Search, buyers: BuyerBrief[]): MatchDecision => {
      asked.push(search.shown);
      buyers.forEach((buyer, i) => {
        // A buyer the name found that is also one of the place's: scored, as the place's others are,
        // by the rest of the name, since the place's name is in all of theirs.
        const known = found.get(buyer.id);
        if (known && search.localName)
          Object.assign(known, { localTo: search.localTo, localName: search.localName });
        if (!known)
          found.set(buyer.id, {
            buyer,
            rank: search.ranked ? i : null,
            order: found.size,
            ...(search.localTo ? { localTo: search.localTo } : {}),
            ...(search.localName ? { localName: search.localName } : {}),
          });
      });
      scored = this.#score(scoring, name, [...found.values()], p.placed);
      return decideNow();
    };
    let anywhereAsked = false;
    for (const search of this.#plan(name, p.placed, p.local, website, givenState, state, convincing)) {
      if (calls >= (search.anywhere ? MAX_SEARCHES : MAX_SEARCHES - 1)) continue;
      if (nameSettled && search.rewritesName) continue;
      // The first search may be given up for the pool's match while it waits (pool-waiters.ts).
      const waiting =
        !decision && calls === 0 && this.#pool && state && poolable(p)
          ? this.#waiters.watch(state.code, () => this.#fromPool(p))
          : undefined;
      let ran: Awaited<ReturnType<Search['run']>>;
      try {
        ran = await search.run(waiting?.signal);
      } catch (err) {
        if (waiting?.answer) return waiting.answer;
        throw err;
      } finally {
        waiting?.stop();
      }
      const { buyers, called } = ran;
      if (called) calls++;
      anywhereAsked ||= !!search.anywhere;
      if (buyers === null) continue;
      decision = take(search, buyers);
      const check =
        decision.status === 'matched' && calls < MAX_SEARCHES ? this.#check(p, scored, anywhereAsked) : null;
      if (check) {
        const { buyers: more } = await check.run();
        calls++;
        anywhereAsked ||= !!check.anywhere;
        if (more) decision = take(check, more);
      }
      if (decision.status === 'matched') {
        if (share)
          await this.#cache
            ?.set(share.key, serializeAnswer([...found.values()]), this.#options.sharedAnswerTtlSeconds)
            .catch(() => undefined);
        return decision;
      }
      nameSettled ||= settledByName(decision, scored);
    }
    if (decision && (await this.#profile(scored, found, p.account))) {
      scored = this.#score(scoring, name, [...found.values()], p.placed);
      decision = decideNow();
    }
    // "Dallas VA Medical Center" unmatched: its buyer may hold the place in its attributes only ("VA
    // North Texas Health Care System", in Dallas). The place's buyers, scored by the rest of the name,
    // are offered to a person; asked last, as it rescores what the name found.
    if (decision?.status !== 'matched' && p.local?.rest && state && calls < MAX_SEARCHES - 1) {
      const search = this.#placeSearch(p.local, state);
      const { buyers, called } = await search.run();
      if (called) calls++;
      if (buyers) decision = take(search, buyers);
    }
    return decision ?? decideNow();
  }

  /** The buyers of the account's place (`Prepared.local`), found by the criteria search's city. */
  #placeSearch(local: NonNullable<Prepared['local']>, state: StateEntry): Search {
    return {
      shown: `the buyers in ${local.city} in ${state.code}`,
      ranked: false,
      rewritesName: false,
      localTo: local.fromZip
        ? `${local.city} (its zip)`
        : local.rest
          ? `${local.city} (the place its name begins with)`
          : local.city,
      ...(local.rest ? { localName: local.rest } : {}),
      run: () => this.#findIn(local.city, state),
    };
  }

  /** The decision on the account's scored candidates (decide.ts). */
  #decide(p: Prepared, scored: readonly Scored[], found: number, asked: readonly string[]): MatchDecision {
    const { name, state, contradiction, mailOnly } = p;
    const given = p.given ?? p.website ?? '';
    return decide({ given, name, scored, found, asked, state, contradiction, mailOnly }, this.#options);
  }

  /**
   * A match from the buyers earlier searches found in the account's state (answer-pool.ts), taken only
   * when it is as plain as a match gets: the best reads exactly as the account's name (as written, or
   * one of the buyer's own names), of the kind the name says, in the account's state, ranked within the
   * first `searchLimit` of the answer that found it (its namesakes came with it), with no rival within
   * the margin and nothing contradicting it. A name read with the account's place, or an account that
   * says two states, searches.
   */
  #fromPool(p: Prepared): MatchDecision | null {
    const { name, state } = p;
    if (!this.#pool || !name || !state || !poolable(p)) return null;
    const pooled = this.#pool.candidates(state.code, name);
    if (!pooled.length) return null;
    const kept = pooled.map(({ buyer }, order) => ({ buyer, rank: null, order }));
    const scored = this.#score({ ...p.account, website: p.website }, name, kept, p.placed);
    const best = scored[0];
    // A name that says its kind, read exactly as a buyer of that kind: a bare place name ("Springfield")
    // has rivals of every kind that only its own search finds.
    const agrees = best?.result.signals.some((s) => s.signal === 'type' && s.points > 0);
    if (!name.typeHint || !best?.result.nameEqual || best.result.otherState || !agrees) return null;
    const rank = pooled.find((f) => f.buyer.id === best.candidate.buyerId)?.rank;
    if (rank === undefined || rank >= this.#options.searchLimit) return null;
    const decision = this.#decide(p, scored, kept.length, []);
    return decision.status === 'matched' && decision.buyerId === best.candidate.buyerId ? decision : null;
  }

  /**
   * Before an account the pool could match searches: what the other workers received since this one
   * last read (shared-pool.ts), folded into the pool, and the pool asked again — by the same rule, so
   * another worker's answer matches only what this worker's own search of it would have let it match.
   */
  async #fromSharedPool(p: Prepared): Promise<MatchDecision | null> {
    if (!this.#feed || !this.#pool || !poolable(p)) return null;
    return (await this.#foldShared()) ? this.#fromPool(p) : null;
  }

  /** Folds what the other workers received into the pool; whether anything came. */
  #foldShared(): Promise<boolean> {
    const feed = this.#feed;
    const pool = this.#pool;
    if (!feed || !pool) return Promise.resolve(false);
    const limit = this.#poolLimit();
    this.#reading ??= feed
      .read()
      .then((answers) => {
        // A rank is weighed against `searchLimit` in an answer of this length: another length, another rule.
        const fitting = answers.filter((a) => a.limit === limit);
        for (const a of fitting) pool.addRanked(a.state, a.buyers);
        for (const state of new Set(fitting.map((a) => a.state))) this.#waiters.grew(state);
        return fitting.length > 0;
      })
      // A feed that fails leaves the pool as it was: the account searches.
      .catch(() => false)
      .finally(() => {
        this.#reading = null;
      });
    return this.#reading;
  }

  /** Results a search in a state asks for when a pool keeps them. */
  #poolLimit(): number {
    return Math.min(100, this.#options.searchLimit * POOL_LIMIT_FACTOR);
  }

  /**
   * The search that checks a match made on thin evidence before it is taken: a name match that does not
   * read as the name exactly ("Oakland Schools" for Oakland Unified in CA) across states — the name may
   * be exactly another state's buyer's; a match on an email domain alone by the buyer's name — every
   * part of an organisation ("fbi.gov": the FBI and its field offices) mails from its domain.
   */
  #check(p: Prepared, scored: readonly Scored[], anywhereAsked: boolean): Search | null {
    const top = scored[0];
    if (!top || top.result.otherState) return null;
    if (p.mailOnly && !p.name)
      return { ...this.#anywhere(top.candidate.name), ranked: false, anywhere: false };
    // Only a name whose words of kind alone differ can be another state's buyer's exactly.
    if (
      !p.name ||
      !p.state ||
      anywhereAsked ||
      top.result.nameSimilarity >= 1 ||
      !top.result.sameCore ||
      top.result.independent
    )
      return null;
    return this.#anywhere(statesWrittenOut(p.name.searchName));
  }

  /** A search of the name in every state: a body that spans states is filed under one of them. */
  #anywhere(query: string): Search {
    return {
      shown: `"${query}" in any state`,
      ranked: true,
      rewritesName: false,
      anywhere: true,
      run: async () => ({ buyers: await this.#find(query, undefined), called: true }),
    };
  }

  /**
   * Reads the attributes of the candidates a close decision turns on, at most MAX_PROFILES: those that
   * what the attributes add could still carry to the threshold or tell from a rival — another name the
   * API found them by (it listed them first or second), the account's address or email domains, a type
   * the search result left out. True when any was read.
   */
  async #profile(
    scored: readonly Scored[],
    found: Map<string, Found>,
    account: AccountForMatching,
  ): Promise<boolean> {
    const client = this.#profiles;
    if (!client) return false;
    const w = this.#options.weights;
    const located = !!(account.zip?.trim() || account.city?.trim() || account.county?.trim());
    const mailed = !!account.emailDomains?.length;
    const potential = (s: Scored): number => {
      const f = found.get(s.candidate.buyerId);
      let gain = 0;
      if ((f?.rank ?? 99) < 2) gain += w.name * (1 - s.result.nameSimilarity);
      if (located) gain += w.zip + 2 * w.locality;
      if (mailed && !s.result.independent) gain += w.emailDomain;
      if (!s.candidate.type) gain += w.typeAgreement;
      return decisiveScore(s, gain);
    };
    const threshold = this.#options.acceptThreshold;
    const best = scored.find((s) => s.result.related);
    // The best already reaches the threshold: rivals or a contradiction held it back, and only where
    // the account is, or its mail, can tell the rivals apart.
    // An inexact best may still read exactly as another of its names ("San Francisco").
    const heldBack = !!best && best.result.score >= threshold;
    const wanted = (s: Scored): boolean => {
      if (!heldBack) return potential(s) >= threshold;
      if (s === best) return located || mailed || !s.result.nameEqual;
      return (located || mailed) && s.result.score >= threshold - this.#options.ambiguityMargin;
    };
    const picked = scored
      .filter((s) => (s.result.related || (found.get(s.candidate.buyerId)?.rank ?? 99) < 2) && wanted(s))
      .slice(0, MAX_PROFILES);
    const unread = picked.flatMap((s) => {
      const f = found.get(s.candidate.buyerId);
      return f && f.profiled === undefined ? [f] : [];
    });
    if (!unread.length) return false;
    await Promise.all(
      unread.map(async (f) => {
        f.profiled = await readProfile(client, f.buyer.id);
      }),
    );
    return true;
  }

  /**
   * The searches to try in order, each made only while nothing is matched (a generator: a later
   * search's words are worked out only when it is reached): the name, a nickname written out; the
   * buyers at the website; an initialism written out; the name with its misspelt place written right;
   * the name's canonical words; the website's words.
   */
  *#plan(
    name: NormalizedName | null,
    placed: readonly NormalizedName[],
    local: Prepared['local'],
    website: string | null,
    accountState: string | null,
    state: StateEntry | undefined,
    convincing: () => boolean,
  ): Generator<Search> {
    const where = state ? ` in ${state.code}` : '';
    const asked = new Set<string>();
    const byName = (query: string | null | undefined): Search | null => {
      if (!query?.trim() || asked.has(foldText(query))) return null;
      asked.add(foldText(query));
      return {
        shown: `"${query}"${where}`,
        ranked: true,
        rewritesName: true,
        run: async (signal) => ({ buyers: await this.#find(query, state, signal), called: true }),
      };
    };
    const host = parseWebAddress(website)?.host;
    const code = state?.code ?? null;
    const searches = [
      () => (name ? byName(nicknameQuery(name, code) ?? name.searchName) : null),
      // A name that names no place, with the account's county or city, when it alone found none.
      ...placed.map((read) => () => (convincing() ? null : byName(read.searchName))),
      // A name of kind words only, when its place's name did not find it either: the buyers of that
      // place ("Tribal Council" at 86039: the Hopi Tribe, whose name holds neither word nor place).
      // (A place then kind words, "Dallas VA Medical Center", is asked last: see `#search`.)
      (): Search | null =>
        local && !local.rest && state && !convincing() ? this.#placeSearch(local, state) : null,
      (): Search | null =>
        host
          ? {
              shown: `the buyers at ${host}`,
              ranked: false,
              rewritesName: false,
              run: () => this.#findAt(host),
            }
          : null,
      () => (name ? byName(initialsQuery(name, code)) : null),
      () => (name ? byName(typoQuery(name, code)) : null),
      () => (name ? byName(fallbackQuery(name)) : null),
      () => {
        const search = byName(domainQuery(website, accountState ?? code)?.query);
        return search && { ...search, rewritesName: false };
      },
      () =>
        name && state && spansStates(name) && !convincing()
          ? this.#anywhere(statesWrittenOut(name.searchName))
          : null,
    ];
    for (const next of searches) {
      const search = next();
      if (search) yield search;
    }
  }

  #find(buyerName: string, state: StateEntry | undefined, signal?: AbortSignal): Promise<BuyerBrief[]> {
    const limit = this.#options.searchLimit;
    // A search in a state asks for more than the decision reads: the rest is for the pool, whose
    // answer is the more complete for it (the same call; only the first `searchLimit` decide here).
    const pooled = state && this.#pool ? this.#poolLimit() : limit;
    return this.#client
      .searchBuyers(
        { buyerName, limit: pooled, ...(state ? { buyerStateCode: state.code } : {}) },
        signal ? { signal } : {},
      )
      .then((r) => {
        const kept = state && this.#pool?.add(state.code, r.buyers);
        if (state && kept) {
          this.#feed?.publish({
            search: JSON.stringify([state.code, foldText(buyerName), pooled]),
            state: state.code,
            limit: pooled,
            buyers: kept,
          });
          this.#waiters.grew(state.code);
        }
        // What the other workers found, for the searches still waiting here (the feed reads at most
        // every quarter second).
        if (this.#feed && this.#waiters.waiting) void this.#foldShared();
        return r.buyers.slice(0, limit);
      });
  }

  /** The buyers whose web address is `host`, when the API has a search by criteria; null when it has none. */
  async #findAt(host: string): Promise<{ buyers: BuyerBrief[] | null; called: boolean }> {
    if (this.#criteria === 'unsupported' || !this.#criteriaSearch.available)
      return { buyers: null, called: false };
    try {
      const buyers = await this.#criteriaSearch.search({ url: host, limit: this.#options.searchLimit });
      if (buyers) this.#criteria = 'supported';
      return { buyers, called: true };
    } catch (err) {
      // Read anew (TypeScript keeps the narrowing above across the await): other accounts' calls may
      // have taught it something while this one was out.
      const learnt = this.#criteria as 'unknown' | 'supported' | 'unsupported';
      // It has answered before: this failure is the provider's (an outage), for the job to retry.
      if (learnt === 'supported' || sharedFailure(err)) throw err;
      // Another account's answer, back first, said the same: not this account's failure.
      if (learnt === 'unsupported') return { buyers: null, called: true };
      this.#criteriaFailures++;
      if (criteriaUnsupported(err) || this.#criteriaFailures >= CRITERIA_FAILURES_BEFORE_GIVING_UP)
        this.#criteria = 'unsupported';
      return { buyers: null, called: true };
    }
  }

  /**
   * The buyers of a place, by the criteria search's city (a guess like the rest of its shape): null
   * when the API has no criteria search or does not take a city, which it is then not asked again.
   */
  async #findIn(city: string, state: StateEntry): Promise<{ buyers: BuyerBrief[] | null; called: boolean }> {
    if (this.#byPlace === 'unsupported' || !this.#criteriaSearch.available)
      return { buyers: null, called: false };
    try {
      const buyers = await this.#criteriaSearch.search({
        city,
        stateCode: state.code,
        // A place holds many buyers and what the account names is not what ranks them: as many as a
        // search in a state asks for its pool.
        limit: this.#options.searchLimit * POOL_LIMIT_FACTOR,
      });
      return { buyers, called: true };
    } catch (err) {
      if (sharedFailure(err)) throw err;
      if (criteriaUnsupported(err)) this.#byPlace = 'unsupported';
      return { buyers: null, called: true };
    }
  }

  #score(
    account: AccountForMatching,
    name: NormalizedName | null,
    buyers: readonly Found[],
    placed: readonly NormalizedName[],
  ): Scored[] {
    const scored = buyers.map(({ buyer: brief, rank, order, profiled, localTo, localName }): Scored => {
      // What the attributes say fills in what the search result left out.
      const buyer = profiled
        ? {
            ...brief,
            type: brief.type ?? profiled.type,
            stateCode: brief.stateCode ?? profiled.stateCode,
            url: brief.url ?? profiled.url,
            profile: profiled.profile,
          }
        : brief;
      const result = scoreCandidate(
        {
          name: localName ?? name,
          state: account.state,
          website: account.website,
          emailDomains: account.emailDomains ?? null,
          city: account.city ?? null,
          county: account.county ?? null,
          zip: account.zip ?? null,
          placed,
        },
        buyer,
        this.#options.weights,
        { rank, localTo: localTo ?? null },
      );
      return {
        order,
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
    return scored.sort((a, b) => b.result.score - a.result.score || a.order - b.order);
  }
}

/** An account the pool may match: a name read without the account's place, one state, not known by its mail alone. */
function poolable(p: Prepared): boolean {
  return !!p.name && !!p.state && !p.placed.length && !p.contradiction && !p.mailOnly;
}

/**
 * Whether a name is worth a search across states: a body's own name of two words or more ("Tahoe
 * Regional Planning Agency") or with its kind ("Hennepin County Library"), not a company's. A bare word
 * ("Springfield") finds only namesakes there, which the name alone could never match.
 */
function spansStates(name: NormalizedName): boolean {
  const words = name.core.filter((t) => !/^\d+$/.test(t)).length;
  return !name.company && words > 0 && (words >= 2 || name.typeTokens.length > 0);
}

/**
 * A review whose best candidate reads exactly as the account's name, of the kind it says: what is left
 * to decide is which of the buyers so named (a state not given, namesakes within the margin), and the
 * name written another way finds the same names again — in the bench accounts, that second search
 * never changed the decision and cost a search in ~7 % of the accounts. Only the web address can still
 * tell them apart, so its searches stay.
 */
function settledByName(decision: MatchDecision, scored: readonly Scored[]): boolean {
  if (decision.status !== 'needs_review') return false;
  const best = scored.find((s) => s.result.related && !s.result.otherState);
  return !!best && best.result.nameSimilarity === 1 && !best.result.typeConflict;
}
