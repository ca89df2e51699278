// A rejected match, or an account moving to another buyer, takes back what we wrote for the buyer it
// leaves: every field still holding a value of ours goes back to what it held before any write of ours
// (a person's later edit is kept and reported), and every note we created is removed — undo's rules,
// run as an undo run of its own (scope `all`), so it is on the history and can be undone in turn.
import type { AccountKey } from '../write/ledgers.ts';
import { runUndo, type UndoDeps, type UndoOutcome } from './undo.ts';

/**
 * Takes back everything of ours on the account, or does nothing when we never wrote it. `why`: the
 * run's label, e.g. `rejected by ana`. The caller holds the account (the enrich job's lock): `deps`
 * carries no locks, which would wait for that very job.
 */
export async function takeBackAccount(
  deps: Omit<UndoDeps, 'locks'>,
  account: AccountKey,
  why: string,
  actor?: string,
): Promise<UndoOutcome | null> {
  const { undo } = await deps.store.open();
  const upToId = await undo.lastId(account);
  if (upToId === null) return null;
  return runUndo(
    { ...deps, locks: undefined },
    {
      scope: { kind: 'all', ...account, upToId },
      what: `${account.crm} account ${account.accountId}'s values and notes of ours (${why})`,
      remarks: [],
    },
    { actor },
  );
}
