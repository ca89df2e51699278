// Size: four cached operations (attributes, signals, search, criteria) over one load path — coalescing,
// the in-process tier and the shared Redis tier; split per operation, each would repeat that path.
// Coalescing and caching in front of the Buyer Intelligence reads the enrichment pipeline makes per
// account. Many CRM accounts name the same buyer (a city with a parks account, a police account, …), so
// the same buyer's attributes, signals and search are asked for again and again, often at the same
// moment by concurrent jobs. This wrapper:
//   (a) coalesces concurrent identical calls in this process: one in-flight promise per key;
//   (b) keeps results for `ttlMs` in an in-process LRU of at most `maxEntries` entries and `maxChars`
//       characters of JSON (the heap they take grows with the size of the answers, not their count);
//   (c) optionally shares results between worker processes through Redis (`redis`), with the same TTL.
// Keys are the operation + buyer id + the sorted attribute list / normalized signal and search params;
// a search's words are keyed as a search index reads them (case, punctuation and spacing aside), so
// "CITY OF AUSTIN" and "City of Austin" are one answer. Searches keep their answers for `searchTtlMs`.
// Errors are never cached (and a failed Redis read or write falls back to the upstream call). Results
// are shared between callers: treat them as read-only.
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { Batcher } from '../batch/batcher.ts';
import { isUrgent } from '../shared/urgency.ts';
import { cacheLeases, LEASE } from './cache-leases.ts';
import type {
  BuyerCriteria,
  BuyerIntelClient,
  CallOptions,
  QuickSearchParams,
  SignalFeedParams,
} from './client.ts';

export type CachedOperations = Pick<
  BuyerIntelClient,
  | 'getBuyerAttributesBulk'
  | 'listRecentBuyerSignals'
  | 'listTopRecentSignals'
  | 'searchBuyers'
  | 'searchBuyersByCriteria'
>;

export interface BuyerIntelCacheOptions {
  /** How long a result is reused, in ms. 0 = coalesce concurrent calls only, cache nothing. */
  ttlMs: number;
  /**
   * How long a search's answer (by name or by criteria) is reused, in ms; default `ttlMs`. The buyers
   * a name finds change far less often than a buyer's signals, and every account of a buyer (its
   * departments, its duplicates) asks for the same name.
   */
  searchTtlMs?: number;
  /** Largest number of results kept in this process (least recently used go first). */
  maxEntries: number;
  /**
   * Largest total size of the results kept in this process, as the characters of their JSON (the
   * least recently used go first). Default: no bound but `maxEntries`.
   */
  maxChars?: number;
  /**
   * Largest single result kept in this process, as the characters of its JSON; default a twentieth of
   * `maxChars` (no bound without it). A larger one (a 100-signal page of the org-wide feed, which its
   * reader turns into an index of its own) would push out dozens of searches that are read again; it
   * is still shared through Redis.
   */
  maxEntryChars?: number;
  /**
   * Share results between processes: keys are `${prefix}<operation>:<key>`, with the same TTL. With
   * `leaseMs` > 0 (default 6,000) concurrent misses of different processes coalesce too: the first takes
   * a lease in the result's own key (SET NX PX of a token no JSON starts with, for twice `maxWaitMs`)
   * and its result replaces it; while the lease's process lives (its key of cache-leases.ts, renewed
   * every `leaseMs / 2`), the others poll the key every `pollMs` (default 15, spaced out to 400–650
   * as the wait grows; a process's polls due together in one MGET) for at most `maxWaitMs` (default
   * 120,000: a holder's call may wait that long in the provider's pace, 4 workers × 200 accounts at 10
   * requests/s; at 15 s, waiters gave up and called too, 428 attribute calls for 404 buyers), and call
   * upstream themselves if it ends without a result (the call failed, or its process died). A miss
   * costs two commands besides the read: the lease, the result.
   */
  redis?: { client: Redis; prefix: string; leaseMs?: number; pollMs?: number; maxWaitMs?: number };
  /** Test seam for the in-process clock. */
  now?: () => number;
}

export interface BuyerIntelCacheStats {
  /** Calls answered from the in-process LRU. */
  hits: number;
  /** Calls answered from Redis (another process fetched it). */
  sharedHits: number;
  /** Of those, calls that waited for another process's call in flight. */
  sharedWaits: number;
  /** Calls that joined a call already in flight. */
  coalesced: number;
  /** Calls that went upstream. */
  misses: number;
  /** Upstream calls that failed (never cached). */
  errors: number;
}

export interface CachedBuyerIntel extends CachedOperations {
  readonly stats: BuyerIntelCacheStats;
  /** Entries currently held in this process. */
  readonly size: number;
  /** Forget everything held in this process (Redis entries expire on their own). */
  clear(): void;
}

/** A result, with the length of its JSON when it went through Redis. */
interface Loaded<T> {
  value: T;
  chars?: number;
}

/**
 * The longest pause between two reads of a key another process holds a lease in (and the share of the
 * wait so far a pause is before that): a call that waits in the provider's pace may take seconds, and
 * an answer seen half a second late costs an account in a backfill nothing. At 250 ms and an eighth,
 * 4 workers' waits on each other's calls cost ~21 reads each, 8 Redis commands per account.
 */
const MAX_POLL_MS = 400;
const POLL_SHARE = 1 / 4;

/**
 * Sleeps `ms` and up to as long again: the waits of one process that end in the same quantum (the
 * largest power of two ≤ ms, on the clock's grid) share one timer, so the reads after them leave
 * together, in one MGET (the reads' Batcher takes what one tick submits). Each on its own timer, the
 * polls of the keys a process waits on left one MGET each: with 4 workers waiting on each other's
 * calls in the provider's pace, 14 Redis commands per account. Waits at the longest spacing that met
 * once stay together.
 */
function pollTick(ticks: Map<number, Promise<void>>, ms: number): Promise<void> {
  const quantum = 2 ** Math.floor(Math.log2(Math.max(1, ms)));
  const due = Math.ceil((Date.now() + ms) / quantum) * quantum;
  let tick = ticks.get(due);
  if (!tick) {
    tick = new Promise<void>((resolve) =>
      setTimeout(() => {
        ticks.delete(due);
        resolve();
      }, due - Date.now()),
    );
    ticks.set(due, tick);
  }
  return tick;
}

/** Object keys sorted, arrays that are sets sorted, undefined dropped: equal params give equal keys. */
function signalKey(params: SignalFeedParams): string {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(params).sort()) {
    const value = (params as unknown as Record<string, unknown>)[name];
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? [...new Set(value.map(String))].sort() : value;
  }
  return JSON.stringify(out);
}

function attributesKey(buyerId: string, attributes: readonly string[] | undefined): string {
  const list = attributes?.length ? [...new Set(attributes)].sort().join(',') : '*';
  return JSON.stringify([buyerId, list]);
}

/** The words as a search index reads them: case, punctuation and spacing aside (accents kept). */
function searchWords(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function searchKey(params: QuickSearchParams): string {
  const state = params.buyerStateCode?.trim().toUpperCase() ?? '';
  return JSON.stringify([searchWords(params.buyerName), state, params.limit ?? null]);
}

function criteriaKey(criteria: BuyerCriteria): string {
  const entries = Object.entries(criteria).filter(([, v]) => v !== undefined && v !== '');
  return JSON.stringify(entries.sort(([a], [b]) => a.localeCompare(b)));
}

/** An upstream call, given up when every caller has given up (Flight). */
type Upstream<T> = (signal: AbortSignal) => Promise<T>;

/**
 * A call in flight and who waits on it. It runs without any one caller's signal, so one caller giving
 * up fails no other; once every caller has given up, and none came without a signal, it is given up
 * too: a request still waiting for its slot in the provider's pace leaves it, and no call is made that
 * nobody would read (an account the pool answered while its search waited: src/resolve/resolver.ts).
 */
interface Flight {
  pending: Promise<unknown>;
  urgent: boolean;
  /** What the upstream call listens to. */
  signal: AbortSignal;
  /** A caller waits on the call; with no signal, it waits to the end. */
  join(signal: AbortSignal | undefined): void;
  /** The call ended: its callers' signals are no longer listened to. */
  settle(): void;
}

function newFlight(urgent: boolean): Flight {
  const ac = new AbortController();
  const listening: { signal: AbortSignal; onAbort: () => void }[] = [];
  let open = false;
  let waiting = 0;
  return {
    pending: Promise.resolve(),
    urgent,
    signal: ac.signal,
    join(signal) {
      if (!signal) {
        open = true;
        return;
      }
      waiting++;
      const onAbort = () => {
        if (--waiting === 0 && !open) ac.abort(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      listening.push({ signal, onAbort });
    },
    settle() {
      for (const { signal, onAbort } of listening.splice(0)) signal.removeEventListener('abort', onAbort);
    },
  };
}

/** Resolves with the shared promise, or rejects as soon as this caller's own signal aborts. */
function withSignal<T>(shared: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return shared;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    shared.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

export function cachedBuyerIntel(
  client: CachedOperations,
  options: BuyerIntelCacheOptions,
): CachedBuyerIntel {
  const { ttlMs, maxEntries, redis } = options;
  const searchTtlMs = options.searchTtlMs ?? ttlMs;
  if (!(ttlMs >= 0)) throw new RangeError('ttlMs must be zero or positive');
  if (!(searchTtlMs >= 0)) throw new RangeError('searchTtlMs must be zero or positive');
  if (!(maxEntries >= 1)) throw new RangeError('maxEntries must be at least 1');
  const { maxChars } = options;
  if (maxChars !== undefined && !(maxChars >= 1)) throw new RangeError('maxChars must be at least 1');
  const maxEntryChars =
    maxChars === undefined ? undefined : (options.maxEntryChars ?? Math.max(1, Math.floor(maxChars / 20)));
  if (maxEntryChars !== undefined && !(maxEntryChars >= 1))
    throw new RangeError('maxEntryChars must be at least 1');
  // Values are wrapped: the cache holds objects, and a result may be any JSON value.
  const lru = new LRUCache<string, { value: unknown }>({
    max: maxEntries,
    ...(maxChars === undefined ? {} : { maxSize: maxChars, maxEntrySize: maxEntryChars }),
    // Read the clock on every look: a cached reading would outlive a test clock's jumps.
    ttlResolution: 0,
    ...(options.now ? { perf: { now: options.now } } : {}),
  });
  /** Calls in flight by key, and whether a person waits on them (they go first at the provider's pace). */
  const inflight = new Map<string, Flight>();
  const stats: BuyerIntelCacheStats = {
    hits: 0,
    sharedHits: 0,
    sharedWaits: 0,
    coalesced: 0,
    misses: 0,
    errors: 0,
  };

  /** `chars`: the result's JSON length, as read from or written to Redis (measured here otherwise). */
  function remember(key: string, value: unknown, ttl: number, chars?: number): void {
    if (ttl <= 0) return;
    if (maxChars === undefined) return void lru.set(key, { value }, { ttl });
    // Larger than maxEntryChars: not kept (lru-cache refuses it).
    lru.set(key, { value }, { ttl, size: Math.max(1, chars ?? JSON.stringify(value)?.length ?? 1) });
  }

  function recall(key: string): { value: unknown } | undefined {
    return lru.get(key);
  }

  // A holder's key renewed every 3 s: a process that died is known so within 6 s (its waiters then
  // call upstream themselves), for one command per 3 s per process (at 1 s, 0.85 per account of 4
  // workers' backfill at the provider's pace).
  const leaseMs = redis?.leaseMs ?? 6_000;
  const pollMs = redis?.pollMs ?? 15;
  const maxWaitMs = redis?.maxWaitMs ?? 120_000;

  async function upstream<T>(fetchUpstream: Upstream<T>, signal: AbortSignal): Promise<T> {
    stats.misses++;
    try {
      return await fetchUpstream(signal);
    } catch (err) {
      // Every caller gave up (Flight): not the API's failure.
      if (!signal.aborted) stats.errors++;
      throw err;
    }
  }

  // Reads of the same moment (a chunk's accounts looking up their buyers) go in one MGET.
  const reads = redis
    ? new Batcher<string, string | null>({
        maxBatch: 500,
        send: (keys) => redis.client.mget(keys).catch(() => keys.map(() => null)),
      })
    : undefined;
  /** The waits for other processes' answers, by when they end (pollTick). */
  const ticks = new Map<number, Promise<void>>();
  const leases =
    redis && leaseMs > 0
      ? cacheLeases({ client: redis.client, prefix: redis.prefix, leaseMs, holdMs: 2 * maxWaitMs })
      : undefined;

  /**
   * What the key holds: the value another process stored, or its lease (a call in flight); a failed or
   * corrupt read counts as neither.
   */
  async function readShared<T>(
    sharedKey: string,
  ): Promise<{ found?: Loaded<T>; lease?: string } | undefined> {
    const raw = await reads?.submit(sharedKey).catch(() => null);
    if (!raw) return undefined;
    if (raw.startsWith(LEASE)) return { lease: raw };
    try {
      return { found: { value: JSON.parse(raw) as T, chars: raw.length } };
    } catch {
      return undefined;
    }
  }

  async function load<T>(
    key: string,
    ttl: number,
    fetchUpstream: Upstream<T>,
    signal: AbortSignal,
  ): Promise<Loaded<T>> {
    const call = () => upstream(fetchUpstream, signal);
    if (!redis || ttl <= 0) return { value: await call() };
    const sharedKey = `${redis.prefix}${key}`;
    /** Shares the value over the lease, if any; with its JSON's length, and whether Redis took it. */
    const store = async (value: T) => {
      const json = JSON.stringify(value);
      const ok = await redis.client.set(sharedKey, json, 'PX', ttl).catch(() => undefined);
      return { value, chars: json.length, stored: ok === 'OK' };
    };

    let seen = await readShared<T>(sharedKey);
    if (seen?.found) {
      stats.sharedHits++;
      return seen.found;
    }
    if (!leases) return store(await call());
    // A person waits on this one: it never waits on another process's call, which may be a backfill's
    // far back in the provider's pace (src/shared/urgency.ts). At worst a buyer is read twice.
    if (isUrgent()) return store(await call());
    // At most two waits for another process; then call upstream regardless.
    for (let round = 0; round < 2; round++) {
      const mine = seen?.lease ? null : await leases.take(sharedKey);
      if (mine) {
        let stored = false;
        try {
          const result = await store(await call());
          stored = result.stored;
          return result;
        } finally {
          // The answer took the lease's place; without one, the lease goes at once (only while it is
          // still ours), so that a waiter calls upstream itself.
          await leases.done(sharedKey, mine, stored);
        }
      }
      // Another process is calling: wait for its answer while it lives. Polls space out as the wait
      // grows (a call waiting in the provider's pace may take seconds): reads per wait grow with its
      // log, not its length, and an answer is seen within about half the wait (at most 0.65 s late).
      // The process's polls that fall due together read together (pollTick).
      let lease = seen?.lease;
      const began = Date.now();
      const deadline = began + maxWaitMs;
      seen = undefined;
      while (Date.now() < deadline) {
        const waited = Date.now() - began;
        await pollTick(ticks, Math.max(pollMs, Math.min(MAX_POLL_MS, waited * POLL_SHARE)));
        signal.throwIfAborted();
        // The key and its holder's liveness in one MGET (both through the batched reads).
        const holder = lease ? reads?.submit(leases.holderKeyOf(lease)).catch(() => null) : undefined;
        const [now, alive] = await Promise.all([readShared<T>(sharedKey), holder]);
        if (now?.found) {
          stats.sharedHits++;
          stats.sharedWaits++;
          return now.found;
        }
        // The lease ended without an answer (its call failed, its process died): take it ourselves.
        if (!now?.lease) break;
        if (lease && now.lease === lease && alive === null) {
          // Its holder is gone (the process died, or predates the holder keys): the lease with it.
          await leases.drop(sharedKey, lease);
          break;
        }
        lease = now.lease;
      }
    }
    return store(await call());
  }

  function through<T>(key: string, opts: CallOptions, fetchUpstream: Upstream<T>, ttl = ttlMs): Promise<T> {
    const hit = recall(key);
    if (hit) {
      stats.hits++;
      return Promise.resolve(hit.value as T);
    }
    const urgent = isUrgent();
    // Given up already: no call is started or joined for it.
    if (opts.signal?.aborted) return Promise.reject(opts.signal.reason);
    const flight = inflight.get(key);
    let pending: Promise<T>;
    // A person's call joins a call in flight only if a person waits on that one too: a backfill's may
    // still be far back in the provider's pace. Then later callers join the person's. A call that every
    // caller gave up is not joined: it ends with their abort.
    if (flight && !flight.signal.aborted && (flight.urgent || !urgent)) {
      stats.coalesced++;
      flight.join(opts.signal);
      pending = flight.pending as Promise<T>;
    } else {
      const entry = newFlight(urgent);
      const settled = () => {
        entry.settle();
        if (inflight.get(key) === entry) inflight.delete(key);
      };
      entry.join(opts.signal);
      entry.pending = load(key, ttl, fetchUpstream, entry.signal).then(
        ({ value, chars }) => {
          settled();
          remember(key, value, ttl, chars);
          return value;
        },
        (err: unknown) => {
          settled();
          throw err;
        },
      );
      pending = entry.pending as Promise<T>;
      inflight.set(key, entry);
    }
    return withSignal(pending, opts.signal);
  }

  return {
    stats,
    get size() {
      return lru.size;
    },
    clear() {
      lru.clear();
    },
    getBuyerAttributesBulk(buyerId, attributes, opts = {}) {
      return through(`attributes:${attributesKey(buyerId, attributes)}`, opts, (signal) =>
        client.getBuyerAttributesBulk(buyerId, attributes, { signal }),
      );
    },
    listRecentBuyerSignals(params, opts = {}) {
      return through(`signals:${signalKey(params)}`, opts, (signal) =>
        client.listRecentBuyerSignals(params, { signal }),
      );
    },
    // A run's pages of the org-wide feed: every worker reads them once (run-signals.ts).
    listTopRecentSignals(params = {}, opts = {}) {
      return through(`feed:${signalKey(params)}`, opts, (signal) =>
        client.listTopRecentSignals(params, { signal }),
      );
    },
    searchBuyers(params, opts = {}) {
      return through(
        `search:${searchKey(params)}`,
        opts,
        (signal) => client.searchBuyers(params, { signal }),
        searchTtlMs,
      );
    },
    searchBuyersByCriteria(criteria, opts = {}) {
      return through(
        `criteria:${criteriaKey(criteria)}`,
        opts,
        (signal) => client.searchBuyersByCriteria(criteria, { signal }),
        searchTtlMs,
      );
    },
  };
}
