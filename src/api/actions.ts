// What a person can ask for, whichever door they come through (the API behind the CRM cards, the admin
// page): refresh an account now, or confirm one of its candidate buyers. Both end in a refresh-priority
// job; a double click within the window is the job already queued.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { CrmConnector, CrmKind } from '../../connectors/types.ts';
import { type EnrichJobData, enrichJobOptions, jobIdOf } from '../../queues/enrich-queue.ts';
import { PROVENANCE_FIELDS } from '../map/field-definitions.ts';
import type { OutcomeHistory } from '../store/history.ts';

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

  async function enqueue(
    crm: CrmKind,
    tenant: string,
    accountId: string,
    cause: string,
    dedupe: boolean,
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
      await options.queue.add(
        'enrich',
        { crm, tenant, accountId, trigger: 'refresh', cause },
        enrichJobOptions('refresh', options.attempts, jobId),
      );
    } catch {
      await options.redis.del(windowKey).catch(() => undefined);
      throw new ActionProblem(503, 'queue_unavailable', 'could not queue the refresh; try again');
    }
    return { jobId, deduplicated: false };
  }

  return {
    refresh: (crm: CrmKind, tenant: string, accountId: string, cause: string) =>
      enqueue(crm, tenant, accountId, cause, true),

    /** Pins a candidate of the account's last "needs review" result and enriches with it. */
    async confirm(
      crm: CrmKind,
      tenant: string,
      accountId: string,
      buyerId: string,
      cause: string,
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
      return enqueue(crm, tenant, accountId, cause, false);
    },
  };
}

export type RefreshActions = ReturnType<typeof refreshActions>;
