// What a backfill chunk's accounts record in the store, gathered: the outcomes of the accounts that
// get there together go in one statement (with the values the policies kept and each account's count
// of accounts sharing its buyer), and the duplicates groups they joined or left are reconciled in one
// read, one CRM write batch and one statement. Issue 31: a chunk's accounts cost the store about two
// statements each when each recorded its own (the upsert, the group's read, its marks).
import type { CrmKind } from '../../connectors/types.ts';
import { Batcher } from '../batch/batcher.ts';
import { type DuplicatesDeps, type ReconcileRequest, reconcileDuplicatesOf } from '../review/duplicates.ts';
import type { OutcomeRecord } from '../store/outcome-rows.ts';
import type { Outcomes } from '../store/outcomes.ts';
import type { FieldWriteEntry, WriteOrigin } from '../write/journal.ts';

export interface ChunkOutcomes {
  /** The account's outcome recorded; how many other accounts of the tenant share its buyer. */
  record(record: OutcomeRecord, kept: readonly FieldWriteEntry[]): Promise<number>;
  /** The account's duplicates groups reconciled (duplicates.ts); throws as `reconcileDuplicates`. */
  reconcile(request: ReconcileRequest): Promise<void>;
}

interface RecordItem {
  record: OutcomeRecord;
  kept: readonly FieldWriteEntry[];
}

export function chunkOutcomes(
  outcomes: () => Promise<Outcomes>,
  duplicates: DuplicatesDeps,
  scope: { crm: CrmKind; tenant: string; origin: WriteOrigin },
): ChunkOutcomes {
  // One batch in flight at a time: the accounts that arrive meanwhile leave together as the next.
  const records = new Batcher<RecordItem, number | Error>({
    maxBatch: 1000,
    maxInFlight: 1,
    send: async (items) => {
      const repo = await outcomes();
      const sharingOf = async (batch: RecordItem[]) => {
        const sharing = await repo.recordManyCountingShared(batch);
        return batch.map((i) => sharing.get(i.record.accountId) ?? 0);
      };
      try {
        return await sharingOf(items);
      } catch (err) {
        // One account's row refused fails that account alone, as its own statement would have.
        if (items.length === 1) throw err;
        const each = await Promise.allSettled(items.map((i) => sharingOf([i])));
        return each.map((r) => (r.status === 'fulfilled' ? (r.value[0] ?? 0) : asError(r.reason)));
      }
    },
  });
  const reconciles = new Batcher<ReconcileRequest, string | null>({
    maxBatch: 1000,
    maxInFlight: 1,
    send: async (requests) => {
      const { failures } = await reconcileDuplicatesOf(duplicates, scope.crm, scope.tenant, requests, {
        origin: scope.origin,
      });
      return requests.map((r) => failures.get(r.accountId) ?? null);
    },
  });
  return {
    async record(record, kept) {
      const sharing = await records.submit({ record, kept });
      if (sharing instanceof Error) throw sharing;
      return sharing;
    },
    async reconcile(request) {
      const failed = await reconciles.submit(request);
      if (failed) throw new Error(`marking a duplicate failed: ${failed}`);
    },
  };
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
