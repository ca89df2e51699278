// Size: the review decisions (list, approve with preview, reject, clear, research, duplicates) share one set of checks.
// The review queue's decisions, whichever door they come through (API, admin page, CLI): each is
// recorded in `decisions` with who took it, and applied by an enrichment job (the normal job flow),
// which writes the CRM. A bulk approve is one run of kind `review`, one decision and one job per account.
import type { Queue } from 'bullmq';
import { isCrmKind } from '../../connectors/registry.ts';
import type { AccountRef, CrmKind } from '../../connectors/types.ts';
import { type EnrichQueueData, enqueueEnrich } from '../../queues/enrich-queue.ts';
import type { ReviewInstruction } from '../../queues/review-instruction.ts';
import { rejectedReason } from '../enrich/review-reasons.ts';
import type { Actor } from '../store/decisions.ts';
import type { CohortCounts, Outcome, OutcomeFilter, PageRequest } from '../store/outcomes.ts';
import type { DuplicatesGroup } from '../store/review.ts';
import type { OutcomeCandidate } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import { recommendedOf } from './duplicates.ts';
import { type LearnFrom, learnedRowOf, rejectedBuyer, topCandidate } from './learn.ts';
import { ActionProblem } from './problem.ts';
import { canonicalAccount } from './schemas.ts';

export type ReviewAccount = AccountRef & { crm: CrmKind };

export interface ReviewServiceOptions {
  store: Pick<Store, 'open'>;
  queue: Queue<EnrichQueueData>;
  attempts: number;
}

export interface ApprovePreview {
  preview: true;
  count: number;
  sample: {
    crm: string;
    tenant: string;
    accountId: string;
    accountName: string | null;
    buyerId: string;
    buyerName: string;
    score: number;
  }[];
}

export interface ApproveDone {
  preview: false;
  runId: string;
  approved: number;
  skipped: { accountId: string; why: string }[];
}

const PAGE = 500;

function crmKindOf(crm: string): CrmKind {
  if (!isCrmKind(crm))
    throw new ActionProblem(500, 'unknown_crm', `the store holds an account of an unknown CRM ${crm}`);
  return crm;
}

export function reviewService(options: ReviewServiceOptions) {
  const { queue, attempts } = options;

  async function enqueue(
    accounts: readonly { key: ReviewAccount; review?: ReviewInstruction }[],
    runId: string,
    cause: string,
    trigger: 'refresh' | 'review',
  ): Promise<string[]> {
    // One job per account per run: the same decision asked twice within a run is queued once.
    return enqueueEnrich(
      queue,
      accounts.map(({ key, review }) => ({ ...key, review })),
      trigger,
      { key: runId, attempts, runId, cause },
    );
  }

  /** One decision on one account: a run, the decision, and the job that applies it. */
  async function single(
    key: ReviewAccount,
    action: 'reject' | 'clear' | 'research' | 'confirm',
    actor: Actor,
    params: Record<string, unknown>,
    before: (runId: string) => Promise<void>,
    review?: ReviewInstruction,
    learn?: LearnFrom,
  ): Promise<{ jobId: string; runId: string }> {
    const { runs, decisions } = await options.store.open();
    const run = await runs.create({
      kind: action === 'confirm' ? 'confirm' : 'review',
      label: `${action} ${key.crm} ${key.tenant} ${key.accountId}`,
      actor: actor.name,
    });
    await before(run.id);
    await decisions.append(
      {
        ...key,
        action,
        buyerId: typeof params.buyerId === 'string' ? params.buyerId : null,
        params,
        actor,
        runId: run.id,
      },
      learn ? learnedRowOf(key, learn, run.id) : null,
    );
    const [jobId = ''] = await enqueue(
      [{ key, ...(review ? { review } : {}) }],
      run.id,
      `${action} by ${actor.name}`,
      // One account at a person's click runs as soon as a refresh would.
      'refresh',
    );
    return { jobId, runId: run.id };
  }

  return {
    /** Counts per cohort (in the filter's CRM and tenant) and one page of the filter's rows. */
    async list(
      filter: OutcomeFilter,
      page: PageRequest,
    ): Promise<{ counts: CohortCounts; rows: Outcome[]; next: string | null }> {
      const { outcomes } = await options.store.open();
      const [counts, listed] = await Promise.all([
        outcomes.counts({ crm: filter.crm, tenant: filter.tenant }),
        outcomes.list(filter, page).catch((err: unknown) => {
          if (err instanceof RangeError)
            throw new ActionProblem(400, 'invalid_request', `after: ${err.message}`);
          throw err;
        }),
      ]);
      return { counts, rows: listed.rows, next: listed.next };
    },

    /** Accounts per cohort (the page shows them beside the duplicates groups). */
    async counts(scope: { crm?: string | undefined; tenant?: string | undefined }): Promise<CohortCounts> {
      const { outcomes } = await options.store.open();
      return outcomes.counts(scope);
    },

    /** Duplicates groups with each one's recommended account. */
    async duplicates(
      scope: { crm?: string | undefined; tenant?: string | undefined },
      page: { limit: number; after?: readonly [string, string, string] | undefined },
    ): Promise<{
      groups: (DuplicatesGroup & { recommended: string | null })[];
      next: [string, string, string] | null;
    }> {
      const { review } = await options.store.open();
      const found = await review.groups(scope, page);
      return {
        groups: found.groups.map((g) => ({ ...g, recommended: recommendedOf(g.members)?.accountId ?? null })),
        next: found.next,
      };
    },

    /** Confirms one candidate of the account's last "needs review" outcome. */
    async confirm(account: ReviewAccount, buyerId: string, actor: Actor) {
      const key = canonicalAccount(account);
      const { outcomes, review } = await options.store.open();
      const outcome = await outcomes.get(key);
      const candidate = outcome?.candidates.find((c) => c.buyerId === buyerId);
      if (!candidate)
        throw new ActionProblem(
          400,
          'not_a_candidate',
          `buyer ${buyerId} is not a candidate of account ${key.accountId}`,
        );
      return single(
        key,
        'confirm',
        actor,
        { buyerId, score: candidate.score },
        async () => {
          await review.unpin(key);
        },
        { action: 'confirm', actor: actor.name, buyerId, score: candidate.score },
        outcome ? { outcome, buyerId, buyerName: candidate.name, verdict: 'confirm' } : undefined,
      );
    },

    /** Rejects the account: a pinned `no_match`, never searched again until a person clears it. */
    async reject(account: ReviewAccount, reason: string, actor: Actor) {
      const key = canonicalAccount(account);
      const { review, outcomes } = await options.store.open();
      // The buyer the person turned down: the match or the best candidate they were shown.
      const outcome = await outcomes.get(key);
      const turnedDown = outcome ? rejectedBuyer(outcome) : null;
      return single(
        key,
        'reject',
        actor,
        { reason },
        (runId) => review.pin(key, rejectedReason(actor.name, reason), { runId }),
        undefined,
        outcome && turnedDown ? { outcome, ...turnedDown, verdict: 'reject' } : undefined,
      );
    },

    /** Removes a rejection; the account's job searches it again. */
    async clear(account: ReviewAccount, actor: Actor) {
      const key = canonicalAccount(account);
      const { review, learned } = await options.store.open();
      let was = false;
      const queued = await single(key, 'clear', actor, {}, async () => {
        was = await review.unpin(key);
        // Clearing a rejection takes back what it taught: the buyer may be matched automatically again.
        await learned.undoForAccount(key, 'reject');
      });
      return { ...queued, wasPinned: was };
    },

    /** Searches again with an edited name and/or state (the CRM's own fields stay as they are). */
    async research(
      account: ReviewAccount,
      edit: { name?: string | undefined; state?: string | undefined },
      actor: Actor,
    ) {
      const key = canonicalAccount(account);
      const { review } = await options.store.open();
      const instruction: ReviewInstruction = {
        action: 'research',
        actor: actor.name,
        ...(edit.name ? { name: edit.name } : {}),
        ...(edit.state ? { state: edit.state } : {}),
      };
      return single(
        key,
        'research',
        actor,
        { ...edit },
        async () => {
          await review.unpin(key);
        },
        instruction,
      );
    },

    /**
     * Approves the top candidate of each selected account, or of every `needs_review` account the
     * filter shows whose top score is at least `floor`. With `preview`, only counts them.
     */
    async approve(
      target: { accounts: readonly ReviewAccount[] } | { filter: OutcomeFilter; floor: number },
      actor: Actor,
      preview: boolean,
    ): Promise<ApprovePreview | ApproveDone> {
      const open = await options.store.open();
      const { outcomes, review, runs, decisions } = open;
      const chosen: { outcome: Outcome; candidate: OutcomeCandidate }[] = [];
      const skipped: { accountId: string; why: string }[] = [];
      let count: number;
      let filter: OutcomeFilter | undefined;
      if ('accounts' in target) {
        const unique = [
          ...new Map(
            target.accounts
              .map(canonicalAccount)
              .map((a) => [`${a.crm}\u0000${a.tenant}\u0000${a.accountId}`, a]),
          ).values(),
        ];
        const found = new Map(
          (await review.outcomesOf(unique)).map((o) => [`${o.crm}\u0000${o.tenant}\u0000${o.accountId}`, o]),
        );
        for (const a of unique) {
          const o = found.get(`${a.crm}\u0000${a.tenant}\u0000${a.accountId}`);
          const top = o ? topCandidate(o) : undefined;
          if (!o) skipped.push({ accountId: a.accountId, why: 'no outcome recorded' });
          else if (o.status !== 'needs_review')
            skipped.push({ accountId: a.accountId, why: `is ${o.status}` });
          else if (!top) skipped.push({ accountId: a.accountId, why: 'has no candidate' });
          else chosen.push({ outcome: o, candidate: top });
        }
        count = chosen.length;
      } else {
        filter = {
          ...target.filter,
          cohort: 'needs_review',
          minConfidence: Math.max(target.floor, target.filter.minConfidence ?? 0),
        };
        // Only rows with a candidate can be approved: the preview counts exactly those (an index-only
        // scan, migration 0003).
        count = await outcomes.countApprovable(filter, filter.minConfidence ?? target.floor);
      }
      const sampleOf = (rows: { outcome: Outcome; candidate: OutcomeCandidate }[]) =>
        rows.slice(0, 10).map(({ outcome: o, candidate: c }) => ({
          crm: o.crm,
          tenant: o.tenant,
          accountId: o.accountId,
          accountName: o.accountName,
          buyerId: c.buyerId,
          buyerName: c.name,
          score: c.score,
        }));
      if (filter) {
        // Every page of the filter, in a stable order (the preview's sample is its first rows).
        let after: string | undefined;
        do {
          const page = await outcomes.list(filter, {
            sort: 'confidence',
            direction: 'desc',
            limit: PAGE,
            after,
          });
          for (const o of page.rows) {
            const top = topCandidate(o);
            if (top) chosen.push({ outcome: o, candidate: top });
            else skipped.push({ accountId: o.accountId, why: 'has no candidate' });
          }
          after = page.next ?? undefined;
          if (preview && chosen.length >= 10) break;
        } while (after);
      }
      if (preview) return { preview: true, count, sample: sampleOf(chosen) };

      const run = await runs.create({
        kind: 'review',
        label: `approve the top candidate of ${chosen.length} account${chosen.length === 1 ? '' : 's'}${'floor' in target ? ` (floor ${target.floor})` : ''}`,
        actor: actor.name,
      });
      await decisions.appendMany(
        chosen.map(({ outcome: o, candidate: c }) => ({
          crm: o.crm,
          tenant: o.tenant,
          accountId: o.accountId,
          action: 'approve' as const,
          buyerId: c.buyerId,
          params: { score: c.score, ...('floor' in target ? { floor: target.floor } : {}) },
          actor,
          runId: run.id,
        })),
        // What each approve teaches, in the decisions' transaction.
        chosen.map(({ outcome: o, candidate: c }) =>
          learnedRowOf(o, { outcome: o, buyerId: c.buyerId, buyerName: c.name, verdict: 'confirm' }, run.id),
        ),
      );
      await enqueue(
        chosen.map(({ outcome: o, candidate: c }) => ({
          key: { crm: crmKindOf(o.crm), tenant: o.tenant, accountId: o.accountId },
          review: { action: 'confirm' as const, actor: actor.name, buyerId: c.buyerId, score: c.score },
        })),
        run.id,
        `bulk approve by ${actor.name}`,
        'review',
      );
      await runs.finish(run.id, { queued: chosen.length, skipped: skipped.length });
      return { preview: false, runId: run.id, approved: chosen.length, skipped };
    },
  };
}

export type ReviewService = ReturnType<typeof reviewService>;
