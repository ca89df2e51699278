// A backfill chunk: its accounts run as single jobs would, side by side, so they share the batch calls
// and BullMQ's lifecycle is paid once for all of them. They take the process's account slots (at most
// WORKER_CONCURRENCY in flight, chunk or not) in groups — as many as are free — and each group takes
// its accounts' locks and starts together (one read batch). An account's failure never fails or
// retries the chunk: it is handed to a single-account job of the run (its usual backfill job id,
// attempts and backoff), delayed as the failure decides (queues/failure.ts) — a CRM tenant's wait or a
// rate limit by its delay, anything transient by the first backoff, an account whose lock another job
// holds by the lock's retry — or, failed for good, carrying its reason so that job fails at once
// without calling the upstreams again. A Buyer Intelligence 429 parks the whole queue, as for a single
// job, and the accounts not started yet are handed off behind it rather than sent into the limit.
// The chunk itself fails only before its accounts run (the daily headroom, the store): then it is
// deferred or retried whole, and enrich-worker.ts decides as for any job.
import type { Job, Queue } from 'bullmq';
import type { LogPort } from '../src/shared/log.ts';
import { lockReleaser, takeLocks } from '../src/shared/redis-lock.ts';
import type { ExclusiveOptions } from './account-lock.ts';
import type { ChunkAccount, ChunkResult } from './chunk-result.ts';
import {
  type ChunkJobData,
  type EnrichJobData,
  type EnrichQueueData,
  enrichJob,
  PRIORITY,
  runJobIdOf,
} from './enrich-queue.ts';
import { cappedExponentialBackoff, classifyFailure } from './failure.ts';
import type { WorkerLoad } from './worker-load.ts';

/** What the service does with a chunk's accounts, prepared once per chunk. */
export interface ChunkRunner<R> {
  /** Accounts this chunk already finished before it stalled (cheaply known): status by account. */
  recorded: ReadonlyMap<string, string>;
  /** The accounts about to start together, their locks held, before any of them runs. */
  starting(accountIds: readonly string[]): void;
  run(data: EnrichJobData): Promise<R>;
}

export interface ChunkOptions<R> {
  queue: Queue<EnrichQueueData>;
  load: WorkerLoad;
  exclusive?: ExclusiveOptions | undefined;
  prepare: (chunk: ChunkJobData, job: Job<EnrichQueueData>) => Promise<ChunkRunner<R>>;
  log?: Pick<LogPort, 'warn'> | undefined;
  onRateLimit?: ((delayMs: number) => void) | undefined;
  /**
   * The worker is stopping (a deploy's SIGTERM): accounts not started yet are handed off at once, so
   * the drain waits for the accounts in flight only, not for the chunk's whole remaining pace.
   */
  stopping?: (() => boolean) | undefined;
}

interface Handoff {
  accountId: string;
  reason: string;
  delayMs: number;
  failure?: string;
}

export async function runChunk<R>(
  options: ChunkOptions<R>,
  job: Job<EnrichQueueData>,
  chunk: ChunkJobData,
): Promise<ChunkResult<R>> {
  const { load, exclusive } = options;
  const jobId = String(job.id);
  const runner = await options.prepare(chunk, job);
  const dataOf = (accountId: string): EnrichJobData => ({
    crm: chunk.crm,
    tenant: chunk.tenant,
    accountId,
    trigger: 'backfill',
    ...(chunk.cause ? { cause: chunk.cause } : {}),
    ...(chunk.runId ? { runId: chunk.runId } : {}),
  });
  const entries = new Map<string, ChunkAccount<R>>();
  const handoffs: Handoff[] = [];
  const handOff = (h: Handoff) => {
    handoffs.push(h);
    const id = runJobIdOf(chunk.crm, chunk.tenant, h.accountId, 'backfill', chunk.run);
    entries.set(h.accountId, { accountId: h.accountId, handedOff: id, reason: h.reason });
  };
  let parkedMs: number | undefined;

  async function runAccount(accountId: string): Promise<void> {
    try {
      entries.set(accountId, { accountId, result: await runner.run(dataOf(accountId)) });
    } catch (err) {
      const decision = classifyFailure(err);
      if (decision.action === 'rate-limit') {
        if (parkedMs === undefined) {
          parkedMs = decision.delayMs;
          options.log?.warn('upstream rate limit: parking the queue', { jobId, delayMs: parkedMs });
          options.onRateLimit?.(parkedMs);
          await options.queue.rateLimit(parkedMs);
        }
        handOff({ accountId, reason: decision.reason, delayMs: decision.delayMs });
      } else if (decision.action === 'defer') {
        options.onRateLimit?.(decision.delayMs);
        handOff({ accountId, reason: decision.reason, delayMs: decision.delayMs });
      } else if (decision.action === 'fail') {
        handOff({ accountId, reason: decision.reason, delayMs: 0, failure: decision.reason });
      } else {
        handOff({ accountId, reason: decision.reason, delayMs: cappedExponentialBackoff(1) });
      }
    }
  }

  for (const [accountId, status] of runner.recorded) entries.set(accountId, { accountId, recorded: status });
  const pending = chunk.accountIds.filter((id) => !runner.recorded.has(id));
  load.accountsDone(jobId, chunk.accountIds.length - pending.length);
  const owner = `job:${jobId}`;
  const release = exclusive ? lockReleaser(exclusive.redis, owner) : undefined;
  const running: Promise<void>[] = [];
  let failed: unknown;
  try {
    while (pending.length) {
      if (parkedMs !== undefined) {
        for (const accountId of pending.splice(0))
          handOff({ accountId, reason: 'upstream rate limit: the queue is parked', delayMs: parkedMs });
        break;
      }
      if (options.stopping?.()) {
        for (const accountId of pending.splice(0))
          handOff({ accountId, reason: 'the worker is stopping', delayMs: 0 });
        break;
      }
      // Half the slots at least (or all it has left): its accounts start in a few large groups. A
      // twentieth stays free for a person's or a webhook's account, which would otherwise wait for
      // a group to end (seconds at the provider's pace).
      const least = Math.ceil(load.slots.capacity / 2);
      const leave = Math.ceil(load.slots.capacity / 20);
      const n = await load.slots.take(pending.length, PRIORITY.backfill, least, leave);
      if (parkedMs !== undefined || options.stopping?.()) {
        load.slots.release(n); // parked or stopping while this waited: the loop hands the rest off
        continue;
      }
      const group = pending.splice(0, n);
      const keys = exclusive ? group.map((id) => exclusive.keyOf(dataOf(id))) : [];
      const held = exclusive
        ? await takeLocks(exclusive.redis, keys, owner, exclusive.ttlMs).catch((err: unknown) => {
            load.slots.release(n);
            throw err;
          })
        : group.map(() => true);
      const ready = group.filter((_, i) => held[i]);
      const busy = group.filter((_, i) => !held[i]);
      load.slots.release(busy.length);
      for (const accountId of busy)
        handOff({
          accountId,
          reason: 'another job of this account is running',
          delayMs: exclusive?.retryDelayMs ?? 0,
        });
      runner.starting(ready);
      for (const accountId of ready) {
        const key = keys[group.indexOf(accountId)];
        running.push(
          runAccount(accountId).finally(async () => {
            if (release && key) await release(key);
            load.slots.release(1);
            load.accountsDone(jobId);
          }),
        );
      }
      load.accountsDone(jobId, busy.length);
    }
  } catch (err) {
    failed = err;
  }
  // Nothing of this chunk may still run when it ends, whichever way: a retry would run it twice at once.
  await Promise.all(running);
  if (failed !== undefined) throw failed;
  await handOffJobs(options.queue, chunk, handoffs, job.opts.attempts ?? 1);
  return { accounts: chunk.accountIds.flatMap((id) => entries.get(id) ?? []) };
}

/** The handed-off accounts' own jobs, in one round trip; an id already queued stays as it is. */
async function handOffJobs(
  queue: Queue<EnrichQueueData>,
  chunk: ChunkJobData,
  handoffs: readonly Handoff[],
  attempts: number,
): Promise<void> {
  if (!handoffs.length) return;
  await queue.addBulk(
    handoffs.map((h) => {
      const job = enrichJob({ crm: chunk.crm, tenant: chunk.tenant, accountId: h.accountId }, 'backfill', {
        key: chunk.run,
        attempts,
        runId: chunk.runId,
        cause: chunk.cause,
      });
      return {
        ...job,
        data: { ...job.data, ...(h.failure ? { failure: h.failure } : {}) },
        opts: { ...job.opts, ...(h.delayMs > 0 ? { delay: h.delayMs } : {}) },
      };
    }),
  );
}
