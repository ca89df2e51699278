// What every connector's removeNotes shares: the batch size check, one removal per note even when a
// batch names it twice, and a result per ref in input order. Each CRM supplies only how a list of
// distinct note ids is removed.
import type { NoteRef, NoteRemovalResult, WriteFailure } from './types.ts';

/** What became of one note id: removed now, already gone before this call, or why not. */
export type RemovalOutcome = 'removed' | 'already_gone' | WriteFailure;

export async function removeNotesOnce(
  refs: readonly NoteRef[],
  maxBatch: number,
  remove: (noteIds: string[]) => Promise<RemovalOutcome[]>,
): Promise<NoteRemovalResult[]> {
  if (refs.length === 0) return [];
  if (refs.length > maxBatch)
    throw new RangeError(`removeNotes takes at most ${maxBatch} notes, got ${refs.length}`);
  // CRMs may refuse a batch that names one record twice; the second ref shares the first one's fate.
  const ids = [...new Set(refs.map((ref) => ref.noteId))];
  const outcomes = await remove(ids);
  const outcomeOf = new Map(ids.map((id, i) => [id, outcomes[i]]));
  return refs.map(({ accountId, noteId }): NoteRemovalResult => {
    const outcome = outcomeOf.get(noteId) ?? { status: undefined, message: 'no outcome', permanent: false };
    if (outcome === 'removed' || outcome === 'already_gone') return { accountId, noteId, outcome };
    return { accountId, noteId, outcome: 'failed', error: outcome };
  });
}
