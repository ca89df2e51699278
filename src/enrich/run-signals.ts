// Where a run's signals come from. One account's job asks for its buyer's recent signals (one call per
// new buyer). A backfill or re-enrichment run touches hundreds of buyers; the provider's org-wide feed
// (`top-signals`: the same signals "regardless of buyer", the same window and filters, paged) holds all
// of them in totalItems ÷ page size calls. A run takes whichever is cheaper, decided when it starts
// (planSignals) and kept in Redis under its run id; every worker reads the plan once per run.
//
// Where a run reads the feed, each worker builds one index (buyer → signals, in the feed's order) from
// its pages, read through the shared cache so concurrent workers read each page once; the index is
// read again when it is older than `refreshMs` (the run outlived it) — new signals since then are
// missed until then, as the per-buyer call's cache misses them for its TTL. The feed is read sorted as
// the per-buyer call is, so a buyer's first `pageSize` signals are the ones that call would answer;
// rows are keyed by id, so one that moved to the next page while we read (a new signal above it) is
// counted once. Single accounts (webhooks, refreshes) keep the per-buyer call.
//
// The index keeps each buyer's signals as UTF-8 JSON in a Buffer, parsed when an account asks. Parsed,
// the org's signals were a third of a worker's live heap (43 of 133 MB in a backfill: each row carries
// its bridge's column descriptions), and every full collection marked all of it again. A Buffer's bytes
// live outside the heap (JavaScript strings took 53 MB for the same rows, two bytes a character once
// one is not Latin-1). Parsing a buyer's few signals per account costs less than that marking.
import type { Redis } from 'ioredis';
import type { BuyerIntelClient, BuyerSignalsParams, SignalFeedParams } from '../buyer-intel/client.ts';
import type { RelativeDatePeriod, RowStatus, SignalFilterType, SignalSort } from '../buyer-intel/enums.ts';
import type { BridgeSignal } from '../buyer-intel/schemas.ts';

export interface SignalSettings {
  filterType: SignalFilterType[];
  status: RowStatus[];
  period: RelativeDatePeriod;
  sort: SignalSort;
  maxNotesPerRun: number;
}

/** The feed's page size: the provider's bound on row pages (not stated for the feeds; 100 works). */
export const FEED_PAGE_SIZE = 100;
/** A run that outlives this reads the feed again. */
export const FEED_REFRESH_MS = 60 * 60_000;
/**
 * The most a worker's index of the feed may hold (each buyer's signals as UTF-8 JSON): every worker
 * holds the whole feed, beside a heap of ~100 MB within the worker's 400-MB budget. A feed larger than
 * this is read per buyer however cheap its pages are (an org with 100,000 recent signals would need
 * ~300 MB per worker at the emulator's ~3 KB a row).
 */
export const FEED_INDEX_MAX_BYTES = 64 * 2 ** 20;
/**
 * New buyers per account of a backfill (measured: 0.44 on 500 realistic accounts over 450 buyers,
 * issue 31): what the per-buyer side of the choice is worth before the accounts are resolved.
 */
export const NEW_BUYERS_PER_ACCOUNT = 0.44;

export type SignalSource = 'feed' | 'per-buyer';

export interface SignalPlan {
  source: SignalSource;
  /** Calls to read the feed once (its first page, asked for to count them, included). */
  feedCalls: number;
  /** Calls one per new buyer would spend (estimated). */
  perBuyerCalls: number;
  /** Signals in the feed's window when the run started. */
  totalItems: number;
  /** What one worker's index of the feed would hold (bytes of JSON, from its first page's rows). */
  indexBytes: number;
}

/** The filters and window both feeds take, from the settings. */
function filters(s: SignalSettings): SignalFeedParams {
  return {
    ...(s.filterType.length ? { filterType: s.filterType } : {}),
    ...(s.status.length ? { status: s.status } : {}),
    relativeDatePeriodFrom: s.period,
    sort: s.sort,
  };
}

/** One buyer's call: the notes of a run and some spare (notes already on the account are skipped). */
export function buyerSignalParams(s: SignalSettings, buyerId: string): BuyerSignalsParams {
  return { buyerId, ...filters(s), pageSize: perBuyerPageSize(s) };
}

const perBuyerPageSize = (s: SignalSettings) => Math.min(100, Math.max(10, s.maxNotesPerRun * 2));
const feedParams = (s: SignalSettings): SignalFeedParams => ({ ...filters(s), pageSize: FEED_PAGE_SIZE });

/**
 * The cheaper source for a run of `accounts` accounts: one call (the feed's first page) to count. The
 * feed only while a worker can hold it (`maxIndexBytes`, estimated from the first page's rows).
 */
export async function planSignals(
  client: Pick<BuyerIntelClient, 'listTopRecentSignals'>,
  settings: SignalSettings,
  accounts: number,
  maxIndexBytes = FEED_INDEX_MAX_BYTES,
): Promise<SignalPlan> {
  const perBuyerCalls = settings.maxNotesPerRun > 0 ? Math.ceil(accounts * NEW_BUYERS_PER_ACCOUNT) : 0;
  if (perBuyerCalls === 0)
    return { source: 'per-buyer', feedCalls: 0, perBuyerCalls, totalItems: 0, indexBytes: 0 };
  const first = await client.listTopRecentSignals({ ...feedParams(settings), pageNumber: 1 });
  const feedCalls = Math.max(1, Math.ceil(first.totalItems / FEED_PAGE_SIZE));
  const rows = first.result.length;
  const indexBytes = rows
    ? Math.ceil((Buffer.byteLength(JSON.stringify(first.result)) / rows) * first.totalItems)
    : 0;
  return {
    source: feedCalls < perBuyerCalls && indexBytes <= maxIndexBytes ? 'feed' : 'per-buyer',
    feedCalls,
    perBuyerCalls,
    totalItems: first.totalItems,
    indexBytes,
  };
}

/** Where a run's plan is kept (the install's prefix is a hash tag on a cluster). */
export const signalPlanKey = (prefix: string, runId: string) => `${prefix}:run-signals:${runId}`;
/** A plan outlives any run (a 250,000-account backfill at 10 calls/s takes under a day). */
const PLAN_KEEP_S = 30 * 86_400;

export async function recordSignalPlan(
  redis: Redis,
  prefix: string,
  runId: string,
  plan: SignalPlan,
): Promise<void> {
  await redis.set(signalPlanKey(prefix, runId), plan.source, 'EX', PLAN_KEEP_S);
}

export interface RunSignals {
  /** The buyer's signals from the run's feed; undefined where the run reads them per buyer. */
  signalsOf(runId: string | undefined, buyerId: string): Promise<BridgeSignal[] | undefined>;
}

export function runSignals(options: {
  client: Pick<BuyerIntelClient, 'listTopRecentSignals'>;
  redis: Redis;
  prefix: string;
  settings: SignalSettings;
  refreshMs?: number;
  /** A feed that grew past this since the run was planned is read per buyer instead. */
  maxIndexBytes?: number;
  now?: () => number;
}): RunSignals {
  const now = options.now ?? Date.now;
  const refreshMs = options.refreshMs ?? FEED_REFRESH_MS;
  const maxIndexBytes = options.maxIndexBytes ?? FEED_INDEX_MAX_BYTES;
  // A run's plan, as last read. "Per buyer" is read again after a minute: a re-enrichment records its
  // plan once its accounts are queued and counted, and its first jobs may run before.
  const plans = new Map<string, { at: number; feed: Promise<boolean> }>();
  let index: { at: number; byBuyer: Promise<Map<string, Buffer> | undefined> } | undefined;

  const readsFeed = (runId: string) => {
    const known = plans.get(runId);
    if (known && now() - known.at < 60_000) return known.feed;
    // A process sees a few runs in its life; the bound only keeps a long-lived worker's map small.
    if (plans.size > 1_000) plans.clear();
    const feed = known?.feed.then((f) => f || reread()) ?? reread();
    plans.set(runId, { at: now(), feed });
    return feed;
    function reread() {
      const read = options.redis.get(signalPlanKey(options.prefix, runId)).then((v) => v === 'feed');
      read.catch(() => plans.delete(runId));
      return read;
    }
  };

  const feed = () => {
    if (!index || now() - index.at >= refreshMs) {
      const byBuyer = readFeed(options.client, feedParams(options.settings), maxIndexBytes);
      const entry = { at: now(), byBuyer };
      // A failed read is not kept: the next account reads again.
      byBuyer.catch(() => {
        if (index === entry) index = undefined;
      });
      index = entry;
    }
    return index.byBuyer;
  };

  return {
    async signalsOf(runId, buyerId) {
      if (!runId || options.settings.maxNotesPerRun <= 0 || !(await readsFeed(runId))) return undefined;
      const byBuyer = await feed();
      // Too large to hold: every account asks for its own buyer's, until the index is read again.
      if (!byBuyer) return undefined;
      const signals = byBuyer.get(buyerId);
      if (signals === undefined) return [];
      return (JSON.parse(signals.toString('utf8')) as BridgeSignal[]).slice(
        0,
        perBuyerPageSize(options.settings),
      );
    },
  };
}

/**
 * Every page of the feed, each buyer's signals in the feed's order, each row once, as JSON; undefined
 * once the rows pass `maxBytes` (the rest of the pages are not read).
 */
async function readFeed(
  client: Pick<BuyerIntelClient, 'listTopRecentSignals'>,
  params: SignalFeedParams,
  maxBytes: number,
): Promise<Map<string, Buffer> | undefined> {
  const byBuyer = new Map<string, string[]>();
  const seen = new Set<string>();
  let bytes = 0;
  for (let pageNumber = 1; ; pageNumber++) {
    const page = await client.listTopRecentSignals({ ...params, pageNumber });
    for (const signal of page.result) {
      const buyerId = signal.row.buyerId;
      if (!buyerId || seen.has(signal.row.rowId)) continue;
      seen.add(signal.row.rowId);
      const row = JSON.stringify(signal);
      bytes += Buffer.byteLength(row);
      if (bytes > maxBytes) return undefined;
      const list = byBuyer.get(buyerId);
      if (list) list.push(row);
      else byBuyer.set(buyerId, [row]);
    }
    if (page.result.length === 0 || pageNumber >= page.totalPages) break;
  }
  const texts = new Map<string, Buffer>();
  for (const [buyerId, rows] of byBuyer) texts.set(buyerId, Buffer.from(`[${rows.join(',')}]`));
  return texts;
}
