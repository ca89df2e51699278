// The sweep that settles what no job comes back to: rows recorded pending before a CRM call whose answer
// never reached the store (the process was killed, the store went away) and whose account has no job
// left to settle them first. Rows older than `olderThanMs` only — younger ones may belong to a call
// still in flight —, each account under its enrichment lock (a job writing it meanwhile is left alone:
// the next sweep finds it), a page of accounts at a time, each CRM account read once.
import { randomUUID } from 'node:crypto';
import type { CrmConnector, CrmKind } from '../../connectors/types.ts';
import type { AccountLocks } from '../signals/account-lock.ts';
import type { Store } from '../store/store.ts';
import { settlePendingWrites } from './settle-pending.ts';

/** Pending for longer than this, a row's call is over (CRM calls time out far sooner). */
export const PENDING_SWEEP_AGE_MS = 10 * 60_000;
const PAGE = 200;

export interface PendingSweepResult {
  accounts: number;
  fields: number;
  notes: number;
  /** Notes on the CRM whose id the connector cannot tell: still pending. */
  unsettled: number;
  /** Accounts left for the next sweep: busy, or the CRM failed for now. */
  left: number;
}

export async function sweepPendingWrites(
  deps: {
    store: Pick<Store, 'open'>;
    connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
    locks?: AccountLocks | undefined;
    onError?: (account: { crm: string; accountId: string }, err: unknown) => void;
  },
  options: { olderThanMs?: number; now?: Date; owner?: string } = {},
): Promise<PendingSweepResult> {
  const repos = await deps.store.open();
  const before = new Date(
    (options.now ?? new Date()).getTime() - (options.olderThanMs ?? PENDING_SWEEP_AGE_MS),
  );
  const result: PendingSweepResult = { accounts: 0, fields: 0, notes: 0, unsettled: 0, left: 0 };
  const tried = new Set<string>();
  for (;;) {
    const page = (await repos.writes.accountsPendingSince(before, PAGE + tried.size)).filter(
      (a) => !tried.has(`${a.crm}|${a.tenant}|${a.accountId}`),
    );
    if (!page.length) return result;
    for (const a of page) tried.add(`${a.crm}|${a.tenant}|${a.accountId}`);
    const keys = page.map((a) => ({ ...a, crm: a.crm as CrmKind }));
    const lease = deps.locks
      ? await deps.locks.take(keys, options.owner ?? `pending-sweep:${randomUUID()}`)
      : { held: keys, release: async () => {} };
    try {
      result.left += page.length - lease.held.length;
      for (const account of lease.held) {
        try {
          const done = await settlePendingWrites(
            repos,
            deps.connectorFor(account.crm, account.tenant),
            account,
          );
          result.accounts++;
          result.fields += done.fields;
          result.notes += done.notes;
          result.unsettled += done.unsettled;
        } catch (err) {
          // One account's CRM failing leaves the others to settle; this one waits for the next sweep.
          result.left++;
          deps.onError?.(account, err);
        }
      }
    } finally {
      await lease.release();
    }
  }
}
