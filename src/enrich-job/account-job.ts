// What one account's enrich job does around the pipeline (src/enrich/pipeline.ts): the rules that a
// person's review decisions and the account's earlier jobs leave to it. In order: the writes of an
// earlier attempt go on the record; a rejection stays pinned; a buyer a person turned down or moved
// the account off is taken back; the pipeline runs; a buyer the job itself moved the account off is
// taken back; the outcome is recorded; the duplicate marks of the groups it left or joined are redone.
import type { CrmConnector, CrmKind } from '../../connectors/types.ts';
import type { EnrichJobData } from '../../queues/enrich-queue.ts';
import { type ReviewInstruction, reviewInstructionSchema } from '../../queues/review-instruction.ts';
import { enrichAccount } from '../enrich/pipeline.ts';
import type { EnrichResult, PipelineDeps } from '../enrich/types.ts';
import { PROVENANCE_FIELDS } from '../map/provenance.ts';
import { reconcileDuplicates } from '../review/duplicates.ts';
import { IntegrationError } from '../shared/errors.ts';
import { keptOf, recordOf } from '../store/history.ts';
import type { Outcome } from '../store/outcomes.ts';
import type { PendingRows } from '../store/pending-writes.ts';
import type { Store } from '../store/store.ts';
import { settlePendingWrites } from '../undo/settle-pending.ts';
import { takeBackAccount } from '../undo/take-back.ts';
import type { BatchedWrites } from '../write/batched-writes.ts';
import type { Ledgers } from '../write/ledgers.ts';
import type { ChunkOutcomes } from './chunk-outcomes.ts';

/** What the job needs besides the pipeline's own dependencies. */
export interface EnrichJobDeps {
  store: Pick<Store, 'open'>;
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
  ledgers: Ledgers;
  /** The duplicate marks' writes (batched across jobs like the pipeline's). */
  writeAccount: BatchedWrites['writeAccount'];
  /** Counts the result (the service's metrics). */
  recordResult: (result: EnrichResult) => void;
}

type Rejection = { reason: string };

/**
 * A rejection holds whatever its last job did: one that failed for good leaves it pinned, its status
 * `error` and its reason the person's words.
 */
function rejectionOf(before: Outcome | null | undefined): Rejection | undefined {
  return before?.pinned ? { reason: before.reason ?? 'Rejected' } : undefined;
}

/**
 * Why the account leaves its buyer before the pipeline runs, if it does: a person turned the buyer
 * down (the first job of a rejection: a pin has no job id) or confirmed another one.
 */
function leavingReason(
  before: Outcome | null | undefined,
  rejected: Rejection | undefined,
  instruction: ReviewInstruction | undefined,
): string | undefined {
  if (rejected && before?.jobId === null) return 'rejected';
  if (instruction?.action === 'confirm' && before?.buyerId && before.buyerId !== instruction.buyerId)
    return `moved from buyer ${before.buyerId} to ${instruction.buyerId}`;
  return undefined;
}

/**
 * Takes back what we wrote on the account for its old buyer, with undo's rules, as a run. Accounts the
 * CRM refused for now throw a retryable error: the job's retry resumes the same take-back.
 */
async function takeBack(
  deps: EnrichJobDeps,
  data: EnrichJobData,
  why: string,
  actor?: string,
  move?: Parameters<typeof takeBackAccount>[4],
): Promise<void> {
  const account = { crm: data.crm, tenant: data.tenant, accountId: data.accountId };
  const { store, connectorFor, ledgers } = deps;
  const outcome = await takeBackAccount({ store, connectorFor, ledgers }, account, why, actor, move);
  if (outcome?.pending)
    throw new IntegrationError(`could not take back ${data.accountId}'s values of the old buyer yet`, {
      permanent: false,
    });
}

/**
 * The fields a job that moved the account off its buyer leaves as they are: the new match's
 * provenance, and the mapped fields the new buyer has a value for (written, cleared, found in place, or
 * a person's values the policies kept).
 */
function fieldsOfNewMatch(result: EnrichResult): string[] {
  return [
    ...Object.values(PROVENANCE_FIELDS),
    ...result.fields.filter((f) => f.decision !== 'skip-no-value').map((f) => f.property),
  ];
}

/**
 * A backfill chunk's account: its pending rows read with the chunk's, its outcome and duplicate marks
 * gathered with those of the accounts that started together (chunk-outcomes.ts), each in its step.
 */
export interface InChunk {
  pending: PendingRows;
  outcomes: ChunkOutcomes;
  record: <T>(call: () => Promise<T>) => Promise<T>;
  marks: <T>(call: () => Promise<T>) => Promise<T>;
}

/** One account's enrich job: `before` is its outcome in the store before the job. */
export async function runAccountJob(
  deps: EnrichJobDeps,
  pipeline: PipelineDeps,
  data: EnrichJobData,
  jobId: string | undefined,
  before: Outcome | null | undefined,
  chunk?: InChunk,
): Promise<EnrichResult> {
  const { store } = deps;
  const repos = await store.open();
  // Writes of an earlier attempt whose CRM answer was never recorded go on the record first.
  await settlePendingWrites(repos, deps.connectorFor(data.crm, data.tenant), data, chunk?.pending);
  const rejected = rejectionOf(before);
  const instruction = data.review ? reviewInstructionSchema.parse(data.review) : undefined;
  const meta = { jobId, trigger: data.trigger, runId: data.runId };
  const leaving = leavingReason(before, rejected, instruction);
  if (leaving) await takeBack(deps, data, leaving, instruction?.actor);

  const result = await enrichAccount(pipeline, data, {
    review: rejected ? undefined : instruction,
    rejected,
    job: meta,
  });

  // A job that moved the account off its buyer (a re-enrichment resolved it to another buyer, or to
  // none) takes back what we wrote for the old one: its notes, and the mapped fields the new buyer has
  // no value for. Before the outcome is recorded, so a retry still sees the move and resumes it.
  if (!leaving && jobId && before?.buyerId && before.buyerId !== result.match.buyerId) {
    const { undo } = await store.open();
    await takeBack(
      deps,
      data,
      `moved from buyer ${before.buyerId} to ${result.match.buyerId ?? 'none'}`,
      undefined,
      {
        upToId: await undo.lastIdBefore(data, jobId),
        keepFields: fieldsOfNewMatch(result),
      },
    );
  }
  deps.recordResult(result);
  // The values a policy kept go on the write history in the same statement (its writes and notes
  // were recorded with their CRM batches).
  const record = { ...recordOf(result, meta), ...(rejected ? { pinned: true } : {}) };
  const kept = keptOf(result, meta);
  const sharing = chunk
    ? await chunk.record(() => chunk.outcomes.record(record, kept))
    : (await (await store.open()).outcomes.recordCountingShared(record, { kept })).sharing;
  const moved = Boolean(before?.buyerId) && before?.buyerId !== result.match.buyerId;
  // The first job to apply a rejection (a pin has no job id): the pin already erased the buyer, so
  // the group the account was recommended in is found by the marks pointing at it.
  const formerGroups = Boolean(rejected) && before?.jobId === null;
  const buyerIds = [result.match.buyerId, before?.buyerId];
  if (sharing > 0 || moved || before?.duplicateOf || formerGroups) {
    // In a chunk the accounts reconcile their groups together: one read, the marks in one write batch.
    if (chunk)
      await chunk.marks(() =>
        chunk.outcomes.reconcile({ accountId: data.accountId, buyerIds, formerGroups }),
      );
    else
      await reconcileDuplicates({ review: repos.review, writeAccount: deps.writeAccount }, data, buyerIds, {
        formerGroups,
        origin: meta,
      });
  }
  // No updateProgress(100): it cost a script, four commands and an event per job; a completed
  // job's progress is 100 by its state (the jobs API says so).
  return result;
}
