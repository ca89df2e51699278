// What a person can ask for, whichever door they come through (the API behind the CRM cards, the admin
// page): refresh an account now, or confirm one of its candidate buyers. Both end in a refresh-priority
// job; a double click within the window is the job already queued.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { CrmConnector, CrmKind } from '../../connectors/types.ts';
import { type EnrichQueueData, enqueueEnrich, runJobIdOf } from '../../queues/enrich-queue.ts';
import { ActionProblem } from '../review/problem.ts';
import { canonicalAccount } from '../review/schemas.ts';
import { reviewService } from '../review/service.ts';
import type { Actor } from '../store/decisions.ts';
import type { OutcomeHistory } from '../store/history.ts';
import type { Store } from '../store/store.ts';

export { ActionProblem };

export interface ActionOptions {
  queue: Queue<EnrichQueueData>;
  redis: Redis;
  prefix: string;
  history: OutcomeHistory;
  /** Where each refresh and confirm is recorded as a run, and each confirm as a decision. */
  store: Pick<Store, 'open'>;
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
  attempts: number;
  /** Refresh requests for one account within this window are one job. Default 10 s. */
  refreshWindowMs?: number;
}

export interface Queued {
  jobId: string;
  deduplicated: boolean;
}

export function refreshActions(options: ActionOptions) {
  const windowMs = options.refreshWindowMs ?? 10_000;
  const review = reviewService(options);

  async function recorded<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch {
      throw new ActionProblem(503, 'store_unavailable', `could not record the ${what}; try again`);
    }
  }

  async function enqueue(
    crm: CrmKind,
    tenant: string,
    rawAccountId: string,
    cause: string,
    dedupe: boolean,
    run: () => Promise<string>,
    verify?: () => Promise<void>,
  ): Promise<Queued> {
    // One window per account, whichever form of its id the caller gave.
    const { accountId } = canonicalAccount({ crm, accountId: rawAccountId });
    const windowKey = `${options.prefix}:refresh-window:${crm}:${tenant}:${accountId}`;
    if (dedupe && verify) {
      // Only a request that would queue a new job pays for the check (a double click does not), and
      // before the window starts, so a slow check does not use it up.
      const existing = await options.redis.get(windowKey);
      if (existing) return { jobId: existing, deduplicated: true };
    }
    await verify?.();
    const key = Date.now();
    const jobId = runJobIdOf(crm, tenant, accountId, 'refresh', key);
    if (dedupe) {
      const taken = await options.redis.set(windowKey, jobId, 'PX', windowMs, 'NX');
      if (taken !== 'OK') {
        const existing = await options.redis.get(windowKey);
        if (existing) return { jobId: existing, deduplicated: true };
      }
    } else {
      await options.redis.set(windowKey, jobId, 'PX', windowMs);
    }
    try {
      const runId = await run();
      await enqueueEnrich(options.queue, [{ crm, tenant, accountId }], 'refresh', {
        key,
        attempts: options.attempts,
        runId,
        cause,
      });
    } catch (err) {
      await options.redis.del(windowKey).catch(() => undefined);
      if (err instanceof ActionProblem) throw err;
      throw new ActionProblem(503, 'queue_unavailable', 'could not queue the refresh; try again');
    }
    // The window counts from the answer the person sees, not from before a slow store or queue: set
    // again (not PEXPIRE), since a store slower than the window let the first key expire meanwhile.
    await options.redis.set(windowKey, jobId, 'PX', windowMs).catch(() => undefined);
    return { jobId, deduplicated: false };
  }

  return {
    /** `verify`: e.g. that the CRM has the account, before a job is queued for it. */
    refresh: (
      crm: CrmKind,
      tenant: string,
      accountId: string,
      cause: string,
      actor: Actor,
      verify?: () => Promise<void>,
    ) =>
      enqueue(
        crm,
        tenant,
        accountId,
        cause,
        true,
        () =>
          recorded('refresh', async () => {
            const { runs } = await options.store.open();
            const run = await runs.create({
              kind: 'refresh',
              label: `refresh ${crm} ${tenant} ${accountId}`,
              actor: actor.name,
            });
            return run.id;
          }),
        verify,
      ),

    /**
     * Confirms a candidate of the account's last "needs review" outcome: a decision, and a job that
     * enriches with that buyer and replaces the review's reason and confidence (src/review/service.ts).
     */
    async confirm(
      crm: CrmKind,
      tenant: string,
      accountId: string,
      buyerId: string,
      _cause: string,
      actor: Actor,
    ): Promise<Queued> {
      const queued = await review
        .confirm({ crm, tenant, accountId }, buyerId, actor)
        .catch((err: unknown) => {
          if (err instanceof ActionProblem) throw err;
          throw new ActionProblem(503, 'store_unavailable', 'could not record the decision; try again');
        });
      return { jobId: queued.jobId, deduplicated: false };
    },
  };
}

export type RefreshActions = ReturnType<typeof refreshActions>;
