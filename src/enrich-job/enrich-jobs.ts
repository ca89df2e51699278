// What the enrich worker runs (queues/enrich-worker.ts): one account's job, or a backfill chunk. A chunk
// does once for all of its accounts what a job does for one: the daily-headroom gate (one tenant per
// chunk: the whole chunk waits, no attempt spent), one read of the store for every account's outcome
// before, and the CRM calls of the accounts that start together sent in step (src/batch/lockstep.ts).
import type { Job } from 'bullmq';
import type { ChunkRunner } from '../../queues/enrich-chunk.ts';
import type { ChunkJobData, EnrichJobData, EnrichQueueData } from '../../queues/enrich-queue.ts';
import { Departures, LOCKSTEP_GATHER_MS, Lockstep } from '../batch/lockstep.ts';
import type { EnrichResult, PipelineDeps } from '../enrich/types.ts';
import { type EnrichJobDeps, runAccountJob } from './account-job.ts';
import { chunkOutcomes } from './chunk-outcomes.ts';
import { type EnrichSummary, summarize } from './chunk-summary.ts';

/**
 * The CRM calls of an account, in the order the pipeline makes them (src/enrich/pipeline.ts): the read
 * (with the note check, when our records are unsure), a late note check (a crash's pending marker), the
 * field write, the notes once the fields went through (write-step.ts); then the outcome's record and
 * the duplicate marks, which the accounts of a chunk make together too (chunk-outcomes.ts: one
 * statement for their outcomes).
 */
const STEP = { read: 0, noteKeys: 1, write: 2, notes: 3, record: 4, marks: 5 } as const;
type Step = (typeof STEP)[keyof typeof STEP];

/** Waits while the tenant's daily CRM allocation is down to what others need (src/backfill/daily-headroom.ts). */
export type HeadroomGate = (job: { crm: string; tenant: string; trigger: string }) => Promise<void>;

export function enrichJobs(
  deps: EnrichJobDeps,
  pipeline: PipelineDeps,
  headroomGate: HeadroomGate,
  /** `gatherMs`: the most a chunk's account waits to write with the others (default 2 s). */
  options: { gatherMs?: number | undefined } = {},
) {
  const { store } = deps;
  const gatherMs = options.gatherMs ?? LOCKSTEP_GATHER_MS;
  // The chunks this process runs side by side: their groups' paced rounds leave together.
  const departures = new Departures();
  return {
    /** One account's job. Two round trips to the store: the outcome before, and its upsert. */
    async process(data: EnrichJobData, job: Job<EnrichQueueData>): Promise<EnrichResult> {
      await headroomGate(data);
      const { outcomes } = await store.open();
      return runAccountJob(deps, pipeline, data, job.id, await outcomes.get(data));
    },

    /**
     * A chunk: gated once, its accounts' outcomes read in one statement; then each account runs, and
     * the chunk keeps its summary (chunk-summary.ts).
     */
    async prepareChunk(chunk: ChunkJobData, job: Job<EnrichQueueData>): Promise<ChunkRunner<EnrichSummary>> {
      await headroomGate(chunk);
      const { outcomes } = await store.open();
      // The accounts' outcomes before, and their writes whose CRM answer was never recorded: one
      // statement each for the chunk instead of one per account.
      const [before, pending] = await Promise.all([
        outcomes.getMany(chunk.crm, chunk.tenant, chunk.accountIds),
        store.open().then(({ writes }) => writes.pendingOfMany(chunk.crm, chunk.tenant, chunk.accountIds)),
      ]);
      const gathered = chunkOutcomes(
        async () => (await store.open()).outcomes,
        { review: (await store.open()).review, writeAccount: deps.writeAccount },
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
      const { readAccount, noteKeysOf, writeAccount, createNote } = pipeline;
      const chunkPipeline: PipelineDeps = {
        ...pipeline,
        readAccount: gated(STEP.read, readAccount, (ref) => ref.accountId),
        noteKeysOf: gated(STEP.noteKeys, noteKeysOf, (ref) => ref.accountId),
        noteKeysWithRead: gated(STEP.read, noteKeysOf, (ref) => ref.accountId),
        writeAccount: gated(STEP.write, writeAccount, (_crm, _tenant, update) => update.accountId),
        createNote: gated(STEP.notes, createNote, (_crm, _tenant, note) => note.accountId),
      };
      return {
        recorded,
        starting(accountIds) {
          // The cache of what we wrote on them, read now that their locks are held (no other job
          // writes it under them): one pipeline, and one statement for those the history must fill,
          // instead of a command or a statement per account.
          void pipeline.ledgers.preloadWrittenFields(chunk.crm, chunk.tenant, accountIds);
          // After the read, an account's Buyer Intelligence calls go at the provider's pace: the
          // accounts that come out of them wait for the rest to fill their write batch (lockstep.ts).
          const group = new Lockstep(accountIds, {
            gatherMs,
            pacedAfter: STEP.read,
            departures,
          });
          for (const accountId of accountIds) groups.set(accountId, group);
        },
        run: async (data) => {
          try {
            const result = await runAccountJob(
              deps,
              chunkPipeline,
              data,
              job.id,
              before.get(data.accountId) ?? null,
              {
                pending: pending.get(data.accountId) ?? { fields: [], notes: [] },
                outcomes: gathered,
                record: (call) => inStep(data.accountId, STEP.record, call),
                marks: (call) => inStep(data.accountId, STEP.marks, call),
              },
            );
            return summarize(result);
          } finally {
            groups.get(data.accountId)?.leave(data.accountId);
            groups.delete(data.accountId);
            // Read under this chunk's lock: an account handed off reads again under its own job's.
            pipeline.ledgers.forgetPreloaded(data);
          }
        },
      };
    },
  };
}
