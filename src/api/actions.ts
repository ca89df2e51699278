// What a person can ask for, whichever door they come through (the API behind the CRM cards, the admin
// page): refresh an account now, or confirm one of its candidate buyers. Both end in a refresh-priority
// job; a double click within the window is the job already queued.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { CrmConnector, CrmKind } from '../../connectors/types.ts';
import { type EnrichJobData, enrichJobOptions, jobIdOf } from '../../queues/enrich-queue.ts';
import { PROVENANCE_FIELDS } from '../map/field-definitions.ts';
import type { Actor } from '../store/decisions.ts';
import type { OutcomeHistory } from '../store/history.ts';
import type { Store } from '../store/store.ts';

export class ActionProblem extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export interface ActionOptions {
  queue: Queue<EnrichJobData>;
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
    accountId: string,
    cause: string,
    dedupe: boolean,
    run: () => Promise<string>,
  ): Promise<Queued> {
    const jobId = jobIdOf(crm, tenant, accountId, 'refresh', Date.now());
    const windowKey = `${options.prefix}:refresh-window:${crm}:${tenant}:${accountId}`;
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
      await options.queue.add(
        'enrich',
        { crm, tenant, accountId, trigger: 'refresh', cause, runId },
        enrichJobOptions('refresh', options.attempts, jobId),
      );
    } catch (err) {
      await options.redis.del(windowKey).catch(() => undefined);
      if (err instanceof ActionProblem) throw err;
      throw new ActionProblem(503, 'queue_unavailable', 'could not queue the refresh; try again');
    }
    return { jobId, deduplicated: false };
  }

  return {
    refresh: (crm: CrmKind, tenant: string, accountId: string, cause: string, actor: Actor) =>
      enqueue(crm, tenant, accountId, cause, true, () =>
        recorded('refresh', async () => {
          const { runs } = await options.store.open();
          const run = await runs.create({
            kind: 'refresh',
            label: `refresh ${crm} ${tenant} ${accountId}`,
            actor: actor.name,
          });
          return run.id;
        }),
      ),

    /** Pins a candidate of the account's last "needs review" result and enriches with it. */
    async confirm(
      crm: CrmKind,
      tenant: string,
      accountId: string,
      buyerId: string,
      cause: string,
      actor: Actor,
    ): Promise<Queued> {
      const last = await options.history.last({ crm, tenant, accountId });
      const candidates = last?.result?.match.candidates ?? [];
      if (!candidates.some((c) => c.buyerId === buyerId)) {
        throw new ActionProblem(
          400,
          'not_a_candidate',
          `buyer ${buyerId} is not a candidate of account ${accountId}; to pin another buyer, set ${PROVENANCE_FIELDS.buyerId} in the CRM`,
        );
      }
      // The pin is the same field a person would set: the next enrichment resolves to this buyer.
      const [written] = await options
        .connectorFor(crm, tenant)
        .updateAccounts([{ accountId, fields: { [PROVENANCE_FIELDS.buyerId]: buyerId } }]);
      if (!written?.ok) {
        throw new ActionProblem(
          502,
          'crm_write_failed',
          `could not pin the buyer: ${written?.error.message ?? 'no result'}`,
        );
      }
      // The decision is recorded once the CRM holds the pin: what was decided is what was applied.
      const runId = await recorded('decision', async () => {
        const { runs, decisions } = await options.store.open();
        const run = await runs.create({
          kind: 'confirm',
          label: `confirm ${buyerId} for ${crm} ${tenant} ${accountId}`,
          actor: actor.name,
        });
        await decisions.append({
          crm,
          tenant,
          accountId,
          action: 'confirm',
          buyerId,
          params: { cause },
          actor,
          runId: run.id,
        });
        return run.id;
      });
      return enqueue(crm, tenant, accountId, cause, false, async () => runId);
    },
  };
}

export type RefreshActions = ReturnType<typeof refreshActions>;
