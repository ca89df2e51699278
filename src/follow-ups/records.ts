// What the sweep needs of the store's record of follow-up tasks (src/store/follow-ups.ts implements it;
// the types live here so that this folder never imports the store).

export type RowOutcome = 'Actioned' | 'NotInterested';

export interface OpenFollowUp {
  crm: string;
  tenant: string;
  taskId: string;
  accountId: string;
  dedupeKey: string;
  buyerId: string | null;
  bridgeId: string;
  rowId: string;
  /** The status already decided by an earlier sweep whose provider call did not go through. */
  closing: RowOutcome | null;
  crmState: string | null;
}

export interface FollowUpRecords {
  /** The tenants with open follow-ups. */
  tenants(): Promise<{ crm: string; tenant: string }[]>;
  /** A tenant's open follow-ups, a page at a time after the last task id of the page before. */
  open(crm: string, tenant: string, limit: number, after?: string): Promise<OpenFollowUp[]>;
  /** Claims the row status a task's state decided; false when it is closed or claimed otherwise. */
  claim(f: OpenFollowUp, outcome: RowOutcome, crmState: string): Promise<boolean>;
  /** Whether another task of the same provider row already set it to this status. */
  rowAlreadySet(bridgeId: string, rowId: string, outcome: RowOutcome): Promise<boolean>;
  /** Records the closure on the history; the task is no longer watched. */
  close(f: OpenFollowUp, outcome: RowOutcome, crmState: string, note: string | null): Promise<void>;
  /** A task deleted where deletion is no dismissal: no longer watched, its row left alone. */
  forget(f: OpenFollowUp): Promise<void>;
}
