// The pure decision, per account and field, of what an undo does: put the value before back where the
// CRM still holds the value we wrote, leave a field that already holds the value before, and keep — and
// report — a value somebody changed since. No I/O: the history's rows and the CRM's values come in.
import type { AccountSnapshot } from '../../connectors/types.ts';
import { PROVENANCE_FIELDS } from '../map/provenance.ts';
import type { UndoAccount, UndoField, UndoNote } from '../store/undo.ts';
import { sameValue } from './compare.ts';

export type FieldAction =
  /** The CRM still holds our value: the value before goes back. */
  | 'restore'
  /** The field already holds the value before (restored earlier, or our write changed nothing). */
  | 'unchanged'
  /** Somebody changed the field since we wrote it: their value is kept. */
  | 'skip'
  /**
   * A later write of ours (outside what is undone) holds the field: left as it is for an undo of that
   * write, and never counted as a person's.
   */
  | 'ours';

export interface FieldPlan {
  field: string;
  kind: UndoField['kind'];
  attribute: string | null;
  policy: string | null;
  /** What the CRM holds now (null: empty, or the account is gone). */
  current: string | null;
  /** What the undone writes left. */
  wrote: string | null;
  /** The value before them: what a restore writes (null clears the field). */
  before: string | null;
  action: FieldAction;
}

export interface AccountPlan extends UndoAccount {
  /** The buyer of the writes taken back. */
  buyerId: string | null;
  /** The account no longer exists in the CRM: nothing to restore (its notes are still removed). */
  gone: boolean;
  /** What the CRM holds now in the fields read (ours and the match's). */
  held: Record<string, string | null>;
  fields: FieldPlan[];
  /** Notes the undone writes created that are still to remove. */
  notes: UndoNote[];
  /** Notes an earlier undo removed already. */
  notesRemovedBefore: number;
}

/** Counts of a plan or of what an undo did, per field and in total. */
export interface FieldCounts {
  restore: number;
  unchanged: number;
  skip: number;
  ours: number;
}

export const NO_FIELD_COUNTS: FieldCounts = { restore: 0, unchanged: 0, skip: 0, ours: 0 };

export function planAccounts(
  accounts: readonly UndoAccount[],
  fields: readonly UndoField[],
  notes: readonly UndoNote[],
  snapshots: readonly AccountSnapshot[],
): AccountPlan[] {
  const byId = new Map(snapshots.map((s) => [s.id, s]));
  return accounts.map((account) => {
    const snapshot = byId.get(account.accountId);
    const own = fields.filter((f) => f.accountId === account.accountId);
    const ownNotes = notes.filter((n) => n.accountId === account.accountId);
    const buyerId = own.find((f) => f.buyerId)?.buyerId ?? ownNotes.find((n) => n.buyerId)?.buyerId ?? null;
    // A later match holds the account when the CRM now names another buyer: what the two buyers share
    // was not written again (the value was the same), yet it is the later buyer's now. Taking it back
    // would leave that buyer's name and id over half its data; the fields stay with the later match
    // (its own undo takes them back) and only the notes of the buyer left are removed.
    const held = snapshot?.fields[PROVENANCE_FIELDS.buyerId] ?? null;
    const superseded = buyerId !== null && !!held && !sameValue(held, buyerId);
    const action = (current: string | null, f: UndoField): FieldAction => {
      const a = actionOf(current, f);
      return superseded && a === 'restore' ? 'ours' : a;
    };
    return {
      ...account,
      buyerId,
      gone: !snapshot,
      held: snapshot?.fields ?? {},
      fields: snapshot
        ? own.map((f) => {
            const current = snapshot.fields[f.field] ?? null;
            return {
              field: f.field,
              kind: f.kind,
              attribute: f.attribute,
              policy: f.policy,
              current,
              wrote: f.wrote,
              before: f.before,
              action: action(current, f),
            };
          })
        : [],
      notes: ownNotes.filter((n) => !n.removed),
      notesRemovedBefore: ownNotes.filter((n) => n.removed).length,
    };
  });
}

function actionOf(current: string | null, f: Pick<UndoField, 'wrote' | 'before' | 'later'>): FieldAction {
  if (sameValue(current, f.before)) return 'unchanged';
  if (sameValue(current, f.wrote)) return 'restore';
  // A value is a person's only if no write of ours produced it.
  return f.later.some((v) => sameValue(current, v)) ? 'ours' : 'skip';
}

/** The account has something to write or remove. */
export const hasWork = (plan: AccountPlan): boolean =>
  plan.notes.length > 0 || plan.fields.some((f) => f.action === 'restore');

export function countFields(plans: readonly AccountPlan[], into: Record<string, FieldCounts> = {}) {
  for (const plan of plans)
    for (const f of plan.fields) {
      const counts = into[f.field] ?? { ...NO_FIELD_COUNTS };
      counts[f.action]++;
      into[f.field] = counts;
    }
  return into;
}
