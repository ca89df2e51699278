// What one batch of an undo leaves on the record, from its plan and the CRM's answers: a field write per
// value put back (decision `undo`, old → the value before) or refused, a kept value per person's edit
// (`undo-kept-edit`, not sent), a removal per note, the accounts that are done, the counts, and the
// match the accounts' fields say afterwards (for the review queue). Pure.
import { PROVENANCE_FIELDS as P } from '../map/provenance.ts';
import type { NoteRemovalEntry, OutcomeAfterUndo, UndoAccount } from '../store/undo.ts';
import type { FieldWriteEntry } from '../write/journal.ts';
import type { AppliedBatch } from './apply.ts';
import { sameValue } from './compare.ts';
import { type AccountPlan, type FieldCounts, type FieldPlan, NO_FIELD_COUNTS } from './plan.ts';

export interface UndoCounts {
  /** Accounts done (restored, nothing left to undo, failed for good, or gone from the CRM). */
  accounts: number;
  /** Fields put back to their value before. */
  restored: number;
  /** Fields already holding their value before. */
  unchanged: number;
  /** Fields a person changed since we wrote them: kept. */
  skipped: number;
  /** Fields a later write of ours holds: left for an undo of that write (no person's edit). */
  ours: number;
  notesRemoved: number;
  /** Notes already gone from the CRM (a person deleted them). */
  notesGone: number;
  /** Accounts done with a write or a removal the CRM refused for good. */
  failed: number;
  /** Accounts no longer in the CRM. */
  gone: number;
}

export const NO_COUNTS: UndoCounts = {
  accounts: 0,
  restored: 0,
  unchanged: 0,
  skipped: 0,
  ours: 0,
  notesRemoved: 0,
  notesGone: 0,
  failed: 0,
  gone: 0,
};

export interface BatchRecord {
  fields: FieldWriteEntry[];
  removals: NoteRemovalEntry[];
  done: UndoAccount[];
  counts: UndoCounts;
  /** Per field, what became of it in this batch (a field an earlier attempt recorded is not counted). */
  byField: Record<string, FieldCounts>;
  /** Per account, the fields whose value changed by this batch (Redis caches to drop or update). */
  changed: { account: UndoAccount; fields: Record<string, string | null>; noteKeys: string[] }[];
}

const MAX_ERROR_CHARS = 500;

export function recordOf(
  runId: string,
  plans: readonly AccountPlan[],
  applied: AppliedBatch,
  /**
   * What an interrupted attempt of this run left: whether it had started the account (a field found as
   * before, that it did not record, is its write, lost with the process), and the fields it recorded.
   */
  earlier: {
    started: (account: UndoAccount) => boolean;
    recorded: (account: UndoAccount, field: string) => boolean;
  },
  at: Date,
): BatchRecord {
  const out: BatchRecord = {
    fields: [],
    removals: [],
    done: [],
    counts: { ...NO_COUNTS },
    byField: {},
    changed: [],
  };
  const c = out.counts;
  const tally = (field: string, what: keyof FieldCounts) => {
    const counts = out.byField[field] ?? { ...NO_FIELD_COUNTS };
    counts[what]++;
    out.byField[field] = counts;
  };
  for (const plan of plans) {
    const entry = (f: FieldPlan, over: Partial<FieldWriteEntry>): FieldWriteEntry => ({
      crm: plan.crm,
      tenant: plan.tenant,
      accountId: plan.accountId,
      runId,
      jobId: null,
      trigger: 'undo',
      buyerId: plan.buyerId,
      field: f.field,
      attribute: f.attribute,
      kind: f.kind,
      policy: f.policy,
      old: f.current,
      new: f.before,
      decision: 'undo',
      result: 'ok',
      error: null,
      at,
      ...over,
    });
    let failed = false;
    let forNow = false;
    const fields: Record<string, string | null> = {};
    const update = applied.updates.get(plan.accountId);
    for (const f of plan.fields) {
      if (f.action === 'ours') {
        c.ours++;
        tally(f.field, 'ours');
      } else if (f.action === 'skip') {
        c.skipped++;
        tally(f.field, 'skip');
        out.fields.push(entry(f, { decision: 'undo-kept-edit', result: 'not_sent' }));
      } else if (f.action === 'unchanged') {
        if (earlier.recorded(plan, f.field)) continue;
        if (earlier.started(plan) && !sameValue(f.wrote, f.before)) {
          // The write an interrupted attempt made before it could record it.
          c.restored++;
          tally(f.field, 'restore');
          out.fields.push(entry(f, { old: f.wrote }));
          fields[f.field] = f.before;
        } else {
          c.unchanged++;
          tally(f.field, 'unchanged');
        }
      } else if (update?.ok) {
        c.restored++;
        tally(f.field, 'restore');
        out.fields.push(entry(f, {}));
        fields[f.field] = f.before;
      } else {
        failed = true;
        const error = update?.ok === false ? update.error : undefined;
        forNow ||= !error?.permanent;
        const text = error ? `${error.status ? `${error.status}: ` : ''}${error.message}` : 'not sent';
        out.fields.push(entry(f, { result: 'error', error: text.slice(0, MAX_ERROR_CHARS) }));
      }
    }
    const noteKeys: string[] = [];
    for (const note of plan.notes) {
      const removal = applied.removals.get(note.noteId);
      if (removal?.outcome === 'removed' || removal?.outcome === 'already_gone') {
        if (removal.outcome === 'removed') c.notesRemoved++;
        else c.notesGone++;
        noteKeys.push(note.dedupeKey);
        out.removals.push({
          crm: plan.crm,
          tenant: plan.tenant,
          accountId: plan.accountId,
          runId,
          buyerId: note.buyerId,
          noteId: note.noteId,
          dedupeKey: note.dedupeKey,
          title: note.title,
          outcome: removal.outcome,
          at,
        });
      } else {
        failed = true;
        forNow ||= removal?.outcome !== 'failed' || !removal.error.permanent;
      }
    }
    // Refused for now: the account stays open, and resuming the run sends it again.
    if (!forNow) {
      c.accounts++;
      if (plan.gone) c.gone++;
      if (failed) c.failed++;
      out.done.push({ crm: plan.crm, tenant: plan.tenant, accountId: plan.accountId });
    }
    if (Object.keys(fields).length || noteKeys.length)
      out.changed.push({
        account: { crm: plan.crm, tenant: plan.tenant, accountId: plan.accountId },
        fields,
        noteKeys,
      });
  }
  return out;
}

export function addCounts(a: UndoCounts, b: UndoCounts): UndoCounts {
  const sum = { ...a };
  for (const key of Object.keys(NO_COUNTS) as (keyof UndoCounts)[]) sum[key] = (a[key] ?? 0) + (b[key] ?? 0);
  return sum;
}

/**
 * The match each account's fields say after the batch, for its outcome in the review queue: what the
 * undo put back, else what the CRM held. Only accounts whose buyer or status the batch put back.
 */
export function outcomesAfter(
  plans: readonly AccountPlan[],
  changed: BatchRecord['changed'],
): OutcomeAfterUndo[] {
  return changed.flatMap(({ account, fields }) => {
    if (!(P.buyerId in fields) && !(P.status in fields)) return [];
    const held = plans.find((p) => p.accountId === account.accountId)?.held ?? {};
    const after = (f: string) => ((f in fields ? fields[f] : held[f]) ?? null) || null;
    return [
      {
        ...account,
        status: after(P.status),
        buyerId: after(P.buyerId),
        buyerName: after(P.buyerName),
        confidence: after(P.matchConfidence),
        reason: after(P.matchReason),
      },
    ];
  });
}
