// A rejected match, or an account moving to another buyer (a person's confirm, or a re-enrichment that
// resolves it to another buyer or to none), takes back what we wrote for the buyer it leaves: every field still holding a value of ours goes back to what it held before any write of ours
// (a person's later edit is kept and reported), and every note we created is removed — undo's rules,
// run as an undo run of its own (scope `all`), so it is on the history and can be undone in turn.
import type { AccountRef } from '../../connectors/types.ts';
import { runUndo, type UndoDeps, type UndoOutcome } from './undo.ts';

/**
 * Takes back everything of ours on the account, or does nothing when we never wrote it. `why`: the
 * run's label, e.g. `rejected by ana`. The caller holds the account (the enrich job's lock): `deps`
 * carries no locks, which would wait for that very job.
 */
export async function takeBackAccount(
  deps: Omit<UndoDeps, 'locks'>,
  account: AccountRef,
  why: string,
  actor?: string,
  /**
   * A move found by the job that made it: up to `upToId` (the last row before the job), leaving the
   * fields the new match holds (`keepFields`) as the job left them.
   */
  move?: { upToId: string | null; keepFields: readonly string[] },
): Promise<UndoOutcome | null> {
  const { undo } = await deps.store.open();
  const upToId = move ? move.upToId : await undo.lastId(account);
  if (upToId === null) return null;
  return runUndo(
    { ...deps, locks: undefined },
    {
      scope: { kind: 'all', ...account, upToId },
      what: `${account.crm} account ${account.accountId}'s values and notes of ours (${why})`,
      remarks: [],
      ...(move ? { keepFields: [...move.keepFields] } : {}),
    },
    { actor },
  );
}
