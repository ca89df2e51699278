// Sends one batch of an undo to the CRM: the values before, one update call per `maxUpdateBatch`
// accounts, and the notes to remove, one call per `maxNoteRemovalBatch`. A call that fails as a whole is
// retried (retry.ts); records the CRM refused for now (a batch refused for another record's sake) are
// sent again on their own, a couple of times, before they count as failed.
import type {
  AccountUpdate,
  CrmConnector,
  NoteRef,
  NoteRemovalResult,
  UpdateResult,
} from '../../connectors/types.ts';
import { retrying } from '../shared/retry.ts';
import type { AccountPlan } from './plan.ts';
import { type RetryOptions, withRetries } from './retry.ts';

export interface AppliedBatch {
  /** Per account sent an update. */
  updates: Map<string, UpdateResult>;
  /** Per note sent for removal. */
  removals: Map<string, NoteRemovalResult>;
}

/** Rounds of sending again what the CRM refused for now, after the first. */
const AGAIN = 2;
const AGAIN_BACKOFF = { baseMs: 1_000, maxMs: 10_000 };

const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** Sends `items` in batches; what failed for now goes again, alone, up to AGAIN more rounds. */
async function sendAll<I, R>(
  items: readonly I[],
  size: number,
  send: (batch: I[]) => Promise<R[]>,
  failedForNow: (result: R) => boolean,
  retry: RetryOptions,
): Promise<R[]> {
  const results: R[] = [];
  for (const batch of chunks(items, size)) results.push(...(await withRetries(() => send(batch), retry)));
  const pending = () => results.flatMap((r, i) => (failedForNow(r) ? [i] : []));
  // Records the CRM refused for now are a failure the one executor waits out, a round a try; a call
  // that fails as a whole was retried by withRetries already and ends the batch.
  const stillRefused = new Error('records refused for now');
  try {
    await retrying(
      async (round) => {
        if (round > 1)
          for (const i of pending()) {
            const [result] = await withRetries(() => send([items[i] as I]), retry);
            if (result) results[i] = result;
          }
        if (pending().length) throw stillRefused;
      },
      {
        tries: AGAIN + 1,
        backoff: AGAIN_BACKOFF,
        classify: (err) => ({ permanent: err !== stillRefused }),
        sleep: retry.sleep,
      },
    );
  } catch (err) {
    if (err !== stillRefused) throw err;
  }
  return results;
}

export async function applyBatch(
  connector: CrmConnector,
  plans: readonly AccountPlan[],
  retry: RetryOptions,
): Promise<AppliedBatch> {
  const updates: AccountUpdate[] = plans.flatMap((p) => {
    const restore = p.fields.filter((f) => f.action === 'restore');
    if (p.gone || !restore.length) return [];
    return [{ accountId: p.accountId, fields: Object.fromEntries(restore.map((f) => [f.field, f.before])) }];
  });
  const refs: NoteRef[] = plans.flatMap((p) =>
    p.notes.map((n) => ({ accountId: p.accountId, noteId: n.noteId })),
  );
  const updated = await sendAll(
    updates,
    connector.maxUpdateBatch,
    (batch) => connector.updateAccounts(batch),
    (r) => !r.ok && !r.error.permanent,
    retry,
  );
  const removed = await sendAll(
    refs,
    connector.maxNoteRemovalBatch,
    (batch) => connector.removeNotes(batch),
    (r) => r.outcome === 'failed' && !r.error.permanent,
    retry,
  );
  return {
    updates: new Map(updated.map((r) => [r.accountId, r])),
    removals: new Map(removed.map((r) => [r.noteId, r])),
  };
}
