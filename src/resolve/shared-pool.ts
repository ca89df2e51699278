// The answer pool (answer-pool.ts) shared by every worker process of an install: with W workers each
// process's own pool held ~1/W of the answers, so the more workers, the more searches (issue #42: 1.92 /
// 2.03 / 2.17 Buyer Intelligence calls per account with 1 / 2 / 4 workers). Each answer a process's
// state-limited searches receive is appended once, batched, to one bounded, expiring stream of the
// install; each process reads what the others appended (a plain XREAD from its last id, never
// blocking, at most every `intervalMs` and only when an account is about to search) and folds it into
// its own pool, where the resolver's rule for a pooled match applies to it unchanged.
//
// Per install, not per tenant: the answers are the provider's, asked with the install's one token
// (the Buyer Intelligence cache, `P:bi-cache:*`, is shared the same way), and the in-process pool has
// always served every tenant of its worker. An entry carries buyers and the hash of the search that
// found them, never the account's name. Redis holds nothing the searches cannot find again: a lost,
// flushed or unreadable stream only means fewer pooled answers, and the accounts search.
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { BuyerBrief } from '../buyer-intel/schemas.ts';
import type { Pooled } from './answer-pool.ts';

/** One search's answer as the pool keeps it: its buyers of `state`, each with its rank in the answer. */
export interface SharedAnswer {
  /** What was asked (state, words, limit); only its hash leaves the process (and comes back from a read). */
  search: string;
  state: string;
  /** The results the search asked for: a rank means something only against an answer of that length. */
  limit: number;
  buyers: Pooled[];
}

/** What the resolver needs of a shared pool (a test may give its own). */
export interface PoolFeed {
  /** Offers an answer this process received to the others; an answer already offered or read is not sent again. */
  publish(answer: SharedAnswer): void;
  /** What the other processes offered since the last read; none while the last read is recent, or on an error. */
  read(): Promise<SharedAnswer[]>;
}

export interface RedisPoolFeedOptions {
  /** A non-blocking connection (XREAD is sent without BLOCK). */
  redis: Redis;
  /** The stream's key, under the install's prefix (one key: one slot on a Cluster). */
  key: string;
  /**
   * How long an answer is worth pooling (the pool's TTL); the stream expires between that long and a
   * quarter longer after its last write.
   */
  ttlMs: number;
  /**
   * A process reads, and sends what it gathered, at most this often. Default 250 ms: a chunk's accounts
   * resolve together, so in a backfill a worker reads about once a chunk and sends about as often (XADD
   * and PEXPIRE in one round trip): ~0.07 commands per account in the bench. With 1 s, 4 workers spent
   * 1.8 % more Buyer Intelligence calls per account than at 250 ms (3.8 % more searches; one run each).
   */
  intervalMs?: number;
  /**
   * Entries the stream keeps (trimmed approximately on every write: up to ~100 more). Default 100: ~20 s
   * of 4 busy workers' answers, where a worker reads every second or two; at most ~25 MB.
   */
  maxEntries?: number;
  /** Largest entry, as characters of JSON: a larger batch leaves early, a larger answer stays local. Default 128,000. */
  maxEntryChars?: number;
  /** Entries one read takes, at most. Default 20. */
  readCount?: number;
  onError?: (err: unknown, what: 'read' | 'write') => void;
}

/** A pooled buyer as sent: what it is scored on (`scoredPart`). */
const scoredBuyerSchema = z.object({
  id: z.string().min(1).max(200),
  name: z.string().min(1).max(1_000),
  stateCode: z.string().max(8).optional(),
  type: z.string().max(200).optional(),
  url: z.string().max(2_000).optional(),
});
/**
 * An entry's answers (its field `a`; the process that wrote it is its field `f`, so a process skips
 * its own entries unparsed), each buyer as [rank, buyer].
 */
const wireSchema = z
  .array(
    z.object({
      k: z.string().max(64),
      s: z.string().min(1).max(8),
      l: z.number().int().positive().max(1_000),
      b: z.array(z.tuple([z.number().int().nonnegative(), scoredBuyerSchema])).max(1_000),
    }),
  )
  .max(10_000);
type WireAnswer = z.infer<typeof wireSchema>[number];

/** XREAD's reply for one stream: [[key, [[id, [field, value, …]], …]]], or null when nothing is new. */
const xreadSchema = z
  .array(z.tuple([z.string(), z.array(z.tuple([z.string(), z.array(z.string())]))]))
  .nullable();

/**
 * What a pooled buyer is scored on (weights.ts, ScoringBuyer) and named by: a pooled match is scored
 * and never written back, so the rest of a search result (tags, logo, LinkedIn…) stays local: fewer
 * bytes to send, and less to check on the way in.
 */
function scoredPart(buyer: BuyerBrief): z.infer<typeof scoredBuyerSchema> {
  const { id, name, stateCode, type, url } = buyer;
  return {
    id,
    name,
    ...(stateCode != null ? { stateCode } : {}),
    ...(type != null ? { type } : {}),
    ...(url != null ? { url } : {}),
  };
}

/** An entry's JSON around its answers (`[…]`), with room to spare. */
const ENVELOPE_CHARS = 16;

const hashOf = (search: string) => createHash('sha256').update(search).digest('base64url').slice(0, 16);

export function redisPoolFeed(options: RedisPoolFeedOptions): PoolFeed & { flush(): Promise<void> } {
  const { redis, key, ttlMs } = options;
  const intervalMs = options.intervalMs ?? 250;
  const maxEntries = options.maxEntries ?? 100;
  const maxEntryChars = options.maxEntryChars ?? 128_000;
  const readCount = options.readCount ?? 20;
  if (!(ttlMs >= 1)) throw new RangeError('ttlMs must be at least 1');
  const onError = options.onError ?? (() => undefined);
  const self = randomUUID().slice(0, 12);
  // The searches this process has sent or read lately: an answer served again by a cache (this
  // process's, or Redis's from another process's call) was already offered by whoever asked for it.
  const seen = new LRUCache<string, true>({ max: 50_000, ttl: ttlMs, ttlResolution: 0 });
  let pending: WireAnswer[] = [];
  let pendingChars = 0;
  let timer: NodeJS.Timeout | undefined;
  // The first read takes what the stream still holds of the last `ttlMs` (stream ids are times).
  let lastId = `${Math.max(0, Date.now() - ttlMs)}-0`;
  let lastRead = Number.NEGATIVE_INFINITY;
  let behind = false;
  // The stream's expiry is pushed out to 1.25 × ttlMs once per quarter ttlMs, not with every write:
  // every entry still lives ≥ ttlMs, for one command per write instead of two (4 busy workers: 0.8 per
  // account). A stream deleted meanwhile comes back with the next write and gets its expiry within a
  // quarter ttlMs, if this process writes again; until some process does, it keeps its last ≤ ~200
  // entries, which no read takes once they are older than ttlMs.
  let expiresSetAt = Number.NEGATIVE_INFINITY;

  const flush = async (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!pending.length) return;
    const entry = JSON.stringify(pending);
    pending = [];
    pendingChars = 0;
    try {
      const write = redis.pipeline().xadd(key, 'MAXLEN', '~', maxEntries, '*', 'f', self, 'a', entry);
      if (performance.now() - expiresSetAt >= ttlMs / 4) {
        expiresSetAt = performance.now();
        write.pexpire(key, Math.ceil(ttlMs * 1.25));
      }
      await write.exec().then((replies) => {
        const failed = replies?.find(([err]) => err)?.[0];
        if (failed) throw failed;
      });
    } catch (err) {
      onError(err, 'write');
    }
  };

  const parse = (raw: unknown): SharedAnswer[] => {
    const reply = xreadSchema.safeParse(raw);
    if (!reply.success) return [];
    const out: SharedAnswer[] = [];
    const entries = reply.data?.[0]?.[1] ?? [];
    behind = entries.length >= readCount;
    for (const [id, fields] of entries) {
      lastId = id;
      const field = (name: string) =>
        fields.indexOf(name) % 2 === 0 ? fields[fields.indexOf(name) + 1] : undefined;
      const json = field('a');
      if (field('f') === self || json === undefined || json.length > maxEntryChars) continue;
      let wire: WireAnswer[];
      try {
        const parsed = wireSchema.safeParse(JSON.parse(json));
        if (!parsed.success) continue;
        wire = parsed.data;
      } catch {
        continue;
      }
      for (const a of wire) {
        // This process asked the same (another sent it too, both before reading): its pool has it.
        if (seen.has(a.k)) continue;
        seen.set(a.k, true);
        out.push({
          search: a.k,
          state: a.s,
          limit: a.l,
          buyers: a.b.map(([rank, buyer]) => ({ buyer, rank })),
        });
      }
    }
    return out;
  };

  return {
    publish(answer) {
      const k = hashOf(answer.search);
      if (seen.has(k) || !answer.buyers.length) return;
      seen.set(k, true);
      const wire: WireAnswer = {
        k,
        s: answer.state,
        l: answer.limit,
        b: answer.buyers.map(({ buyer, rank }) => [rank, scoredPart(buyer)]),
      };
      const chars = JSON.stringify(wire).length;
      if (chars > maxEntryChars - ENVELOPE_CHARS) return;
      if (pendingChars + chars > maxEntryChars - ENVELOPE_CHARS) void flush();
      pending.push(wire);
      pendingChars += chars + 1;
      timer ??= setTimeout(() => void flush(), intervalMs).unref();
    },
    async read() {
      const now = performance.now();
      if (now - lastRead < intervalMs && !behind) return [];
      lastRead = now;
      try {
        return parse(await redis.xread('COUNT', readCount, 'STREAMS', key, lastId));
      } catch (err) {
        onError(err, 'read');
        return [];
      }
    },
    /** Sends what is gathered now (tests; a closing worker may call it). */
    flush,
  };
}
