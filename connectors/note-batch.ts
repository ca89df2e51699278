// What every connector's createNotes shares: the batch size check, one note per (account, key) even
// when a batch names it twice, and a result per draft in input order. Each CRM supplies only how a
// list of distinct notes is created.
import type { NoteDraft, NoteResult, WriteFailure } from './types.ts';

export type NoteOutcome = { noteId: string } | WriteFailure;

export async function createNotesOnce(
  drafts: readonly NoteDraft[],
  maxBatch: number,
  create: (unique: NoteDraft[]) => Promise<NoteOutcome[]>,
): Promise<NoteResult[]> {
  if (drafts.length === 0) return [];
  if (drafts.length > maxBatch)
    throw new RangeError(`createNotes takes at most ${maxBatch} notes, got ${drafts.length}`);
  // The same key twice for one account would be two notes for one signal: create it once.
  const unique: NoteDraft[] = [];
  const slotOf = new Map<string, number>();
  const slots = drafts.map((draft) => {
    const id = `${draft.accountId}\u0000${draft.dedupeKey}`;
    let slot = slotOf.get(id);
    if (slot === undefined) {
      slot = unique.length;
      slotOf.set(id, slot);
      unique.push(draft);
    }
    return slot;
  });
  const outcomes = await create(unique);
  return drafts.map((draft, i) => {
    const outcome = outcomes[slots[i] ?? -1];
    if (outcome && 'noteId' in outcome)
      return { dedupeKey: draft.dedupeKey, ok: true, noteId: outcome.noteId };
    return {
      dedupeKey: draft.dedupeKey,
      ok: false,
      error: outcome ?? { status: undefined, message: 'no outcome', permanent: false },
    };
  });
}
