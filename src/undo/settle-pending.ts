// Rows recorded `pending` whose CRM answer never made it to the store (it went away between the call
// and the record, or the process died): settled against what the CRM holds. A field write is ours when
// the field holds the value the row says we sent, else it did not take. A note is ours when the CRM has
// a note with its key (recorded with that note's id, which an undo removes it by), else it was never
// created. Run before an account's job writes again (a retry finds the CRM up to date and writes
// nothing, so only this puts those writes on the record) and by the sweep (`settle-pending`) for
// accounts no job comes back to.
import type { CrmConnector } from '../../connectors/types.ts';
import type { PendingRows } from '../store/pending-writes.ts';
import type { Repositories } from '../store/store.ts';
import type { NoteSettlement } from '../write/journal.ts';
import { sameValue } from './compare.ts';

export interface SettledPending {
  fields: number;
  notes: number;
  /** Notes the CRM holds whose id it cannot tell (a connector without `existingNotesOf`): left pending. */
  unsettled: number;
}

export async function settlePendingWrites(
  repos: Pick<Repositories, 'writes'>,
  connector: Pick<CrmConnector, 'getAccounts' | 'existingNoteKeysOf' | 'existingNotesOf'>,
  account: { crm: string; tenant: string; accountId: string },
  /** The account's pending rows when already read (a backfill chunk reads its accounts' at once). */
  pending?: PendingRows,
): Promise<SettledPending> {
  const { fields, notes } = pending ?? (await repos.writes.pendingOf(account));
  const settled: SettledPending = { fields: fields.length, notes: 0, unsettled: 0 };
  if (fields.length) {
    const [snapshot] = await connector.getAccounts(
      [account.accountId],
      [...new Set(fields.map((p) => p.field))],
    );
    await repos.writes.settleFieldWrites(
      fields.map((p) =>
        snapshot && sameValue(snapshot.fields[p.field] ?? null, p.wrote)
          ? { id: p.id, result: 'ok' as const, error: null }
          : {
              id: p.id,
              result: 'error' as const,
              error: snapshot ? 'not confirmed: the CRM does not hold the value' : 'the account is gone',
            },
      ),
    );
  }
  if (notes.length) {
    const onCrm = connector.existingNotesOf
      ? ((await connector.existingNotesOf([account.accountId])).get(account.accountId) ?? [])
      : ((await connector.existingNoteKeysOf([account.accountId])).get(account.accountId) ?? []).map(
          (dedupeKey) => ({ dedupeKey, noteId: null }),
        );
    const idOf = new Map(onCrm.map((n) => [n.dedupeKey, n.noteId]));
    const out: NoteSettlement[] = [];
    for (const n of notes) {
      const noteId = idOf.get(n.dedupeKey);
      if (noteId === undefined) out.push({ id: n.id, noteId: null });
      else if (noteId === null) settled.unsettled++;
      else out.push({ id: n.id, noteId });
    }
    await repos.writes.settleNotes(out);
    settled.notes = out.length;
  }
  return settled;
}
