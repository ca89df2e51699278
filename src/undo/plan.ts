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
  /**
   * A move's take-back (src/undo/take-back.ts): the later match is the moving job's own, its fields
   * already left out, so every other field of the old buyer goes back whatever the CRM names now.
   */
  options: { move?: boolean } = {},
): AccountPlan[] {
  const byId = new Map(snapshots.map((s) => [s.id, s]));
  return accounts.map((account) => {
    const snapshot = byId.get(account.accountId);
    const own = fields.filter((f) => f.accountId === account.accountId);
    const ownNotes = notes.filter((n) => n.accountId === account.accountId);
    const buyerId = own.find((f) => f.buyerId)?.buyerId ?? ownNotes.find((n) => n.buyerId)?.buyerId ?? null;
    const held = snapshot?.fields[PROVENANCE_FIELDS.buyerId] ?? null;
    const actions = own.map((f) => actionOf(snapshot?.fields[f.field] ?? null, f));
    // A later match of ours holds the account when the CRM names another buyer, or when a later write
    // of ours holds one of the fields undone (a re-enrichment's date, a confirm's confidence…). What it
    // did not write again (the value was the same) is its own now: taking that back would leave its
    // buyer's name over half its data, or its date over none. The fields stay with the later match
    // (its own undo takes them back), and so do the notes of the buyer it names; other buyers' go.
    // Which buyer the undone writes were for is the buyer id they left: an undo's rows name the buyer
    // of the writes it took back, not the one it put back.
    const left = own.find((f) => f.field === PROVENANCE_FIELDS.buyerId);
    const leftBuyer = left ? left.wrote : buyerId;
    const superseded =
      !options.move &&
      ((!!leftBuyer && !!held && !sameValue(held, leftBuyer)) ||
        own.some((f, i) => actions[i] === 'ours' && f.field !== PROVENANCE_FIELDS.duplicateOf));
    const action = (i: number): FieldAction => {
      const a = actions[i] ?? 'unchanged';
      return superseded && a === 'restore' ? 'ours' : a;
    };
    const keepsNote = (n: UndoNote) => superseded && !!held && sameValue(held, n.buyerId);
    return {
      ...account,
      buyerId,
      gone: !snapshot,
      held: snapshot?.fields ?? {},
      fields: snapshot
        ? own.map((f, i) => ({
            field: f.field,
            kind: f.kind,
            attribute: f.attribute,
            policy: f.policy,
            current: snapshot.fields[f.field] ?? null,
            wrote: f.wrote,
            before: f.before,
            action: action(i),
          }))
        : [],
      notes: ownNotes.filter((n) => !n.removed && !keepsNote(n)),
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
