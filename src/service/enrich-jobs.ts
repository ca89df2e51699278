// What the enrich worker does with one account — a job's, or one account of a backfill chunk — and
// what a chunk does once for all of its accounts: the daily-headroom gate (one tenant per chunk: the
// whole chunk waits, no attempt spent), one read of the store for every account's outcome before, and
// the CRM calls of the accounts that start together sent in step (src/batch/lockstep.ts).
import type { Job } from 'bullmq';
import type { ChunkRunner } from '../../queues/enrich-chunk.ts';
import type { ChunkJobData, EnrichJobData, EnrichQueueData } from '../../queues/enrich-queue.ts';
import { reviewInstructionSchema } from '../../queues/review-instruction.ts';
import { Lockstep } from '../batch/lockstep.ts';
import { type EnrichResult, enrichAccount, type PipelineDeps } from '../enrich/pipeline.ts';
import { PROVENANCE_FIELDS } from '../map/provenance.ts';
import { reconcileDuplicates } from '../review/duplicates.ts';
import { IntegrationError } from '../shared/errors.ts';
import { keptOf, recordOf } from '../store/history.ts';
import type { Outcome } from '../store/outcomes.ts';
import type { PendingRows } from '../store/pending-writes.ts';
import { settlePendingWrites } from '../undo/settle-pending.ts';
import { takeBackAccount } from '../undo/take-back.ts';
import { type ChunkOutcomes, chunkOutcomes } from './chunk-outcomes.ts';
import type { ServiceCore } from './core.ts';

/**
 * The CRM calls of an account, in the order the pipeline makes them (src/enrich/pipeline.ts): the read
 * (with the note check, when our records are unsure), a late note check (a crash's pending marker), the
 * field write with the notes; then the outcome's record and the duplicate marks, which the accounts of
 * a chunk make together too (chunk-outcomes.ts: one statement for their outcomes).
 */
const STEP = { read: 0, noteKeys: 1, write: 2, record: 3, marks: 4 } as const;
type Step = (typeof STEP)[keyof typeof STEP];

type Gate = (job: { crm: string; tenant: string; trigger: string }) => Promise<void>;

export function enrichJobs(core: ServiceCore, headroomGate: Gate) {
  const { metrics, store } = core;

  /** A chunk's account: its pending rows read with the chunk's, its outcome and marks gathered. */
  interface InChunk {
    pending: PendingRows;
    outcomes: ChunkOutcomes;
    inStep: <T>(step: Step, call: () => Promise<T>) => Promise<T>;
  }

  async function enrichOne(
    deps: PipelineDeps,
    data: EnrichJobData,
    jobId: string | undefined,
    before: Outcome | null | undefined,
    chunk?: InChunk,
  ): Promise<EnrichResult> {
    const repos = await store.open();
    const { review } = repos;
    // Writes of an earlier attempt whose CRM answer was never recorded go on the record first.
    await settlePendingWrites(repos, core.connector(data.crm, data.tenant), data, chunk?.pending);
    // A rejection holds whatever its last job did: one that failed for good leaves it pinned, its
    // status `error` and its reason the person's words.
    const rejected = before?.pinned ? { reason: before.reason ?? 'Rejected' } : undefined;
    const instruction = data.review ? reviewInstructionSchema.parse(data.review) : undefined;
    const meta = { jobId, trigger: data.trigger, runId: data.runId };
    // A person turned the buyer down (the first job of a rejection: a pin has no job id) or pinned
    // another one: what we wrote for the old buyer is taken back first, with undo's rules, as a run.
    const leaving =
      rejected && before?.jobId === null
        ? 'rejected'
        : instruction?.action === 'confirm' && before?.buyerId && before.buyerId !== instruction.buyerId
          ? `moved from buyer ${before.buyerId} to ${instruction.buyerId}`
          : undefined;
    const takenBack = leaving
      ? await takeBackAccount(
          { store, connectorFor: core.connector, ledgers: core.ledgers },
          { crm: data.crm, tenant: data.tenant, accountId: data.accountId },
          leaving,
          instruction?.actor,
        )
      : null;
    // Accounts the CRM refused for now: the job's retry resumes the same take-back.
    if (takenBack?.pending)
      throw new IntegrationError(`could not take back ${data.accountId}'s values of the old buyer yet`, {
        permanent: false,
      });
    const result = await enrichAccount(deps, data, {
      review: rejected ? undefined : instruction,
      rejected,
      job: meta,
    });
    // A job that moved the account off its buyer (a re-enrichment resolved it to another buyer, or to
    // none) takes back what we wrote for the old one, with undo's rules, as a run: its notes, and the
    // mapped fields the new buyer has no value for (the new match's provenance, the values it wrote,
    // cleared or found in place, and a person's values the policies kept, stay as the job left them). Before
    // the outcome is recorded, so a retry still sees the move and resumes the same take-back.
    if (!leaving && jobId && before?.buyerId && before.buyerId !== result.match.buyerId) {
      const { undo } = await store.open();
      const keepFields = [
        ...Object.values(PROVENANCE_FIELDS),
        ...result.fields.filter((f) => f.decision !== 'skip-no-value').map((f) => f.property),
      ];
      const movedBack = await takeBackAccount(
        { store, connectorFor: core.connector, ledgers: core.ledgers },
        { crm: data.crm, tenant: data.tenant, accountId: data.accountId },
        `moved from buyer ${before.buyerId} to ${result.match.buyerId ?? 'none'}`,
        undefined,
        { upToId: await undo.lastIdBefore(data, jobId), keepFields },
      );
      if (movedBack?.pending)
        throw new IntegrationError(`could not take back ${data.accountId}'s values of the old buyer yet`, {
          permanent: false,
        });
    }
    metrics.recordResult(result);
    // The values a policy kept go on the write history in the same statement (its writes and notes
    // were recorded with their CRM batches).
    const record = { ...recordOf(result, meta), ...(rejected ? { pinned: true } : {}) };
    const kept = keptOf(result, meta);
    const sharing = chunk
      ? await chunk.inStep(STEP.record, () => chunk.outcomes.record(record, kept))
      : (await (await store.open()).outcomes.recordCountingShared(record, { kept })).sharing;
    const moved = Boolean(before?.buyerId) && before?.buyerId !== result.match.buyerId;
    // The first job to apply a rejection (a pin has no job id): the pin already erased the buyer, so
    // the group the account was recommended in is found by the marks pointing at it.
    const formerGroups = Boolean(rejected) && before?.jobId === null;
    const buyerIds = [result.match.buyerId, before?.buyerId];
    if (sharing > 0 || moved || before?.duplicateOf || formerGroups) {
      // In a chunk the accounts reconcile their groups together: one read, the marks in one write batch.
      if (chunk)
        await chunk.inStep(STEP.marks, () =>
          chunk.outcomes.reconcile({ accountId: data.accountId, buyerIds, formerGroups }),
        );
      else
        await reconcileDuplicates({ review, writeAccount: core.writes.writeAccount }, data, buyerIds, {
          formerGroups,
          origin: meta,
        });
    }
    // No updateProgress(100): it cost a script, four commands and an event per job; a completed
    // job's progress is 100 by its state (the jobs API says so).
    return result;
  }

  return {
    /** One account's job. Two round trips to the store: the outcome before, and its upsert. */
    async process(data: EnrichJobData, job: Job<EnrichQueueData>): Promise<EnrichResult> {
      await headroomGate(data);
      const { outcomes } = await store.open();
      return enrichOne(core.deps, data, job.id, await outcomes.get(data));
    },

    /** A chunk: gated once, its accounts' outcomes read in one statement; then each account runs. */
    async prepareChunk(chunk: ChunkJobData, job: Job<EnrichQueueData>): Promise<ChunkRunner<EnrichResult>> {
      await headroomGate(chunk);
      const { outcomes } = await store.open();
      // The accounts' outcomes before, and the cache of what we wrote on them: one statement each for
      // the chunk instead of one per account.
      const [before, pending] = await Promise.all([
        outcomes.getMany(chunk.crm, chunk.tenant, chunk.accountIds),
        store.open().then(({ writes }) => writes.pendingOfMany(chunk.crm, chunk.tenant, chunk.accountIds)),
        core.deps.ledgers.preloadWrittenFields(chunk.crm, chunk.tenant, chunk.accountIds),
      ]);
      const gathered = chunkOutcomes(
        async () => (await store.open()).outcomes,
        { review: (await store.open()).review, writeAccount: core.writes.writeAccount },
        {
          crm: chunk.crm,
          tenant: chunk.tenant,
          origin: { jobId: job.id, trigger: 'backfill', runId: chunk.runId },
        },
      );
      // Progress at no cost: an account whose outcome names this job was finished by it before a stall.
      const recorded = new Map<string, string>();
      for (const [accountId, o] of before)
        if (o.jobId === job.id && o.status !== 'error') recorded.set(accountId, o.status);
      // The accounts that start together go through their CRM calls in step: one batch per call kind.
      const groups = new Map<string, Lockstep>();
      const inStep = <T>(accountId: string, step: Step, call: () => Promise<T>) =>
        groups.get(accountId)?.gate(accountId, call, step) ?? call();
      const gated =
        <A extends unknown[], T>(
          step: Step,
          call: (...args: A) => Promise<T>,
          accountOf: (...args: A) => string,
        ) =>
        (...args: A) =>
          inStep(accountOf(...args), step, () => call(...args));
      const { readAccount, noteKeysOf, writeAccount, createNote } = core.deps;
      const deps: PipelineDeps = {
        ...core.deps,
        readAccount: gated(STEP.read, readAccount, (ref) => ref.accountId),
        noteKeysOf: gated(STEP.noteKeys, noteKeysOf, (ref) => ref.accountId),
        noteKeysWithRead: gated(STEP.read, noteKeysOf, (ref) => ref.accountId),
        writeAccount: gated(STEP.write, writeAccount, (_crm, _tenant, update) => update.accountId),
        createNote: gated(STEP.write, createNote, (_crm, _tenant, note) => note.accountId),
      };
      return {
        recorded,
        starting(accountIds) {
          const group = new Lockstep(accountIds);
          for (const accountId of accountIds) groups.set(accountId, group);
        },
        run: async (data) => {
          try {
            return await enrichOne(deps, data, job.id, before.get(data.accountId) ?? null, {
              pending: pending.get(data.accountId) ?? { fields: [], notes: [] },
              outcomes: gathered,
              inStep: (step, call) => inStep(data.accountId, step, call),
            });
          } finally {
            groups.get(data.accountId)?.leave(data.accountId);
            groups.delete(data.accountId);
          }
        },
      };
    },
  };
}
