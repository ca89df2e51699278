// Backfill: page through a CRM's existing accounts and queue them in jobs of up to
// BACKFILL_ACCOUNTS_PER_JOB accounts (chunks.ts) at the lowest priority (webhook and refresh jobs always
// run first). Resumable: after each page the cursor and counts are saved in Redis, and job ids are fixed
// per run and accounts, so a run killed between queueing a page and saving its cursor re-queues that
// page as no-ops: every account once.
// A backfill is one run in the store, created before its first job and keyed by the resumable run, so
// a resumed backfill is the same run; its jobs name it, its counts say what is queued so far, and it is
// finished once every account is queued.
import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { crmOf } from '../../connectors/registry.ts';
import type { AccountPage, CrmConnector } from '../../connectors/types.ts';
import { type EnrichQueueData, jobIdOf } from '../../queues/enrich-queue.ts';
import { recordSignalPlan, type SignalPlan } from '../enrich/run-signals.ts';
import type { Store } from '../store/store.ts';
import { backfillJobs, DEFAULT_ACCOUNTS_PER_JOB } from './chunks.ts';
import { type AccountFilter, filterFields, matchesFilters } from './filter.ts';
import { type ListingPatience, listPatiently } from './patient.ts';

export interface BackfillState {
  runId: string;
  /** The page cursor to continue after; null before the first page. */
  cursor: string | null;
  scanned: number;
  enqueued: number;
  done: boolean;
  startedAt: string;
  updatedAt: string;
  /** The run in the store that records this backfill (every job names it). */
  storeRunId?: string | undefined;
}

export interface BackfillOptions {
  connector: CrmConnector;
  queue: Queue<EnrichQueueData>;
  redis: Redis;
  prefix: string;
  filters: readonly AccountFilter[];
  /** Stop after queueing this many accounts. */
  limit?: number;
  attempts: number;
  /** Accounts per job (BACKFILL_ACCOUNTS_PER_JOB); default 100. */
  accountsPerJob?: number | undefined;
  pageSize?: number;
  /** Forget a saved run with the same scope and start over. */
  restart?: boolean;
  onProgress?: (state: BackfillState) => void;
  /** Stops after the page being queued, its cursor saved: the same command resumes. */
  signal?: AbortSignal;
  /** Where the backfill is recorded as a run (before the first job is queued), its statistics fresh. */
  store: Pick<Store, 'open'> & Partial<Pick<Store, 'analyze'>>;
  /** How many accounts it is expected to queue (the estimate), for the run's label. */
  expected?: number | undefined;
  /** Who started it, for the run. */
  actor?: string | undefined;
  /** How the listing waits out 429s and other transient failures (patient.ts). */
  patience?: ListingPatience | undefined;
  /** Where the run's signals come from (the estimate's choice), kept for its workers. */
  signalPlan?: SignalPlan | undefined;
}

export { backfillJobId } from './chunks.ts';

/** Tells a run's jobs (its chunks and its accounts' own jobs) from every other job in the queue by their ids (see backfillJobId). */
export function isJobOfRun(
  connector: Pick<CrmConnector, 'kind' | 'tenant'>,
  runId: string,
): (jobId: string) => boolean {
  const head = `${jobIdOf(connector.kind, connector.tenant)}.`;
  const tail = `.${jobIdOf('backfill', runId)}`;
  return (jobId) => jobId.startsWith(head) && jobId.endsWith(tail);
}

/** A run is its CRM, tenant and filters: the same command resumes it. */
export function backfillStateKey(
  prefix: string,
  connector: CrmConnector,
  filters: readonly AccountFilter[],
): string {
  const scope = createHash('sha256').update(JSON.stringify(filters)).digest('hex').slice(0, 12);
  return `${prefix}:backfill:${connector.kind}:${connector.tenant}:${scope}`;
}

export async function readBackfillState(redis: Redis, key: string): Promise<BackfillState | null> {
  const raw = await redis.get(key);
  return raw ? (JSON.parse(raw) as BackfillState) : null;
}

export async function runBackfill(options: BackfillOptions): Promise<BackfillState> {
  const { connector, redis, filters } = options;
  const key = backfillStateKey(options.prefix, connector, filters);
  let state = options.restart ? null : await readBackfillState(redis, key);
  if (!state || state.done) {
    const now = new Date().toISOString();
    state = {
      runId: String(Date.now()),
      cursor: null,
      scanned: 0,
      enqueued: 0,
      done: false,
      startedAt: now,
      updatedAt: now,
    };
  }
  const fields = filterFields(filters);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const { runs } = await options.store.open();
  const run = await runs.create({
    kind: 'backfill',
    key: `${key}:${state.runId}`,
    label: backfillLabel(connector, filters, options.expected ?? options.limit),
    actor: options.actor,
    at: new Date(state.startedAt),
  });
  state = { ...state, storeRunId: run.id };
  // The run's queries are planned on statistics as of now (store.ts: analyze); a failure costs speed only.
  await options.store.analyze?.().catch(() => undefined);
  if (options.signalPlan) await recordSignalPlan(redis, options.prefix, run.id, options.signalPlan);
  // Saved before the first page is asked for: a listing interrupted on its first page (a 429 storm past
  // the budget, a kill) resumes as this run, not as a new one beside an orphan.
  await redis.set(key, JSON.stringify(state));
  while (!state.done && state.enqueued < limit && !options.signal?.aborted) {
    const after = state.cursor;
    const page: AccountPage = await listPatiently(
      () =>
        connector.listAccounts(fields, { after, ...(options.pageSize ? { limit: options.pageSize } : {}) }),
      { ...options.patience, signal: options.patience?.signal ?? options.signal },
    );
    const wanted = page.accounts.filter((a) => matchesFilters(a, filters)).slice(0, limit - state.enqueued);
    const backfill = state.runId;
    if (wanted.length) {
      await options.queue.addBulk(
        backfillJobs(
          connector,
          wanted.map((a) => a.id),
          {
            id: backfill,
            storeRunId: run.id,
            attempts: options.attempts,
            accountsPerJob: options.accountsPerJob ?? DEFAULT_ACCOUNTS_PER_JOB,
          },
        ),
      );
    }
    state = {
      ...state,
      cursor: page.next,
      scanned: state.scanned + page.accounts.length,
      enqueued: state.enqueued + wanted.length,
      done: page.next === null || state.enqueued + wanted.length >= limit,
      updatedAt: new Date().toISOString(),
    };
    await redis.set(key, JSON.stringify(state));
    // What is queued so far, for the run's status (`runs show`, GET /api/runs/:id) while it lists: one
    // statement a page. The cursor is saved already, so a store that fails here costs this count
    // only, and the finish below records the final one.
    if (!state.done)
      await runs.setCounts(run.id, { queued: state.enqueued, scanned: state.scanned }).catch(() => undefined);
    options.onProgress?.(state);
  }
  // The outcomes of its accounts are read from the store as the workers record them.
  if (state.done) await runs.finish(run.id, { queued: state.enqueued, scanned: state.scanned });
  return state;
}

/** "backfill of 2500 accounts (HubSpot 48213907, state=TX)". */
function backfillLabel(
  connector: Pick<CrmConnector, 'kind' | 'tenant'>,
  filters: readonly AccountFilter[],
  expected: number | undefined,
): string {
  const scope = [
    `${crmOf(connector.kind).label} ${connector.tenant}`,
    ...filters.map((f) => `${f.field}${f.negate ? '!=' : '='}${f.value}`),
  ].join(', ');
  return `backfill of ${expected === undefined ? 'every' : expected} account${expected === 1 ? '' : 's'} (${scope})`;
}

export interface CostEstimate {
  accounts: number;
  buyerIntelCalls: number;
  crmCalls: number;
}

/**
 * Counts the accounts a backfill would queue (reading ids and the filter's fields only) and what
 * enriching them costs: per account a buyer search, one bulk attribute call and one signal call, and
 * in the CRM a read and a note check, plus batched writes and the listing itself.
 */
export async function estimateBackfill(
  connector: CrmConnector,
  filters: readonly AccountFilter[],
  limit = Number.POSITIVE_INFINITY,
  patience: ListingPatience = {},
): Promise<CostEstimate> {
  const fields = filterFields(filters);
  let accounts = 0;
  let pages = 0;
  let after: string | null = null;
  do {
    const from: string | null = after;
    const page: AccountPage = await listPatiently(
      () => connector.listAccounts(fields, { after: from }),
      patience,
    );
    pages++;
    accounts += page.accounts.filter((a) => matchesFilters(a, filters)).length;
    after = page.next;
  } while (after && accounts < limit);
  accounts = Math.min(accounts, limit);
  const writes =
    Math.ceil(accounts / connector.maxUpdateBatch) + Math.ceil(accounts / connector.maxNoteBatch);
  return { accounts, buyerIntelCalls: accounts * 3, crmCalls: pages * 2 + accounts * 2 + writes };
}

/**
 * Searches and attribute reads per account of a backfill on realistic names, signals left out: 2.05
 * when issue 31 measured it, 16 % fewer since a worker matches plain names from the buyers its earlier
 * searches found and skips companies' searches (`node bench/resolve-calls.ts`: 1.885 → 1.585).
 */
export const SEARCH_AND_ATTRIBUTE_CALLS_PER_ACCOUNT = 1.72;

/** The Buyer Intelligence calls a run spends: its searches and attributes, and its signals as planned. */
export function backfillBuyerIntelCalls(accounts: number, plan: SignalPlan): number {
  const signals = plan.source === 'feed' ? plan.feedCalls : plan.perBuyerCalls;
  return Math.ceil(accounts * SEARCH_AND_ATTRIBUTE_CALLS_PER_ACCOUNT) + signals;
}

/** Which source of signals the run takes and what each would cost, in words. */
export function signalPlanText(plan: SignalPlan): string {
  if (plan.perBuyerCalls === 0) return 'no signals';
  const feed = `${plan.feedCalls} page${plan.feedCalls === 1 ? '' : 's'} of the org-wide feed (${plan.totalItems} signals)`;
  const perBuyer = `~${plan.perBuyerCalls} calls, one per new buyer`;
  if (plan.source === 'feed')
    return `signals: ${feed}, re-read each hour the run lasts, instead of ${perBuyer}`;
  const tooLarge =
    plan.feedCalls < plan.perBuyerCalls
      ? `, which is too large for a worker to hold (~${Math.ceil(plan.indexBytes / 2 ** 20)} MB)`
      : '';
  return `signals: ${perBuyer}, instead of ${feed}${tooLarge}`;
}
