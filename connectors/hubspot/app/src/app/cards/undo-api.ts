// Undo as the card asks the service for it: POST /api/undo for the company's last change — a dry run
// that answers the plan, then the undo itself, a run queued on the service — and GET /api/runs/:id to
// follow that run to its end (a CRM-signed caller may read the undo of its own company, nothing else).
// The shapes are the service's (src/api/openapi-undo.ts, src/api/openapi-runs.ts).
import { BuyerIntelApiError } from './api-error.ts';

/** One field of the plan: what the CRM holds now, what our undone writes left, and what goes back. */
export interface UndoFieldPlan {
  field: string;
  kind: 'mapped' | 'provenance';
  now: string | null;
  wrote: string | null;
  /** The value before our writes: what a restore writes (null clears). */
  before: string | null;
  /** restore: the CRM still holds ours; skip: a person changed it since (kept); unchanged: as before. */
  action: 'restore' | 'skip' | 'unchanged' | 'ours';
}

export interface UndoAccountPlan {
  crm: string;
  tenant: string;
  accountId: string;
  buyerId: string | null;
  /** The company is no longer in the CRM. */
  gone: boolean;
  fields: UndoFieldPlan[];
  notes: { noteId: string; dedupeKey: string; title: string | null }[];
  notesRemovedBefore: number;
}

/** The dry run's answer: nothing was written. */
export interface UndoPlan {
  dryRun: true;
  /** What the undo takes back, in the service's words ("hubspot account 901's last change (…)"). */
  what: string;
  remarks: string[];
  totals: {
    restore: number;
    skip: number;
    unchanged: number;
    accounts: number;
    notes: number;
    notesRemovedBefore: number;
    gone: number;
  };
  accounts: UndoAccountPlan[];
}

/** The undo, queued: its run, to follow at GET /api/runs/:id. */
export interface UndoQueued {
  runId: string;
  jobId: string;
  /** An interrupted undo of the same change goes on. */
  resumed: boolean;
  what: string;
  remarks: string[];
}

/** The undo run as GET /api/runs/:id answers it (the parts the card reads). */
export interface UndoRun {
  id: string;
  kind: string;
  label: string;
  /** Null while the run goes on. */
  finishedAt: string | null;
  /** The undo's own counts: restored, skipped, unchanged, notesRemoved, notesGone, failed, gone… */
  counts: Record<string, number>;
}

export type Call = <T>(path: string, method: 'GET' | 'POST', body?: Record<string, unknown>) => Promise<T>;

export interface UndoApi {
  /** The plan of undoing the company's last change (a dry run: nothing is written). */
  previewUndo(accountId: string): Promise<UndoPlan>;
  /** Queues the undo of the company's last change. */
  undo(accountId: string): Promise<UndoQueued>;
  getRun(runId: string): Promise<UndoRun>;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An answer the card cannot read is an error it shows, never a crash of the card. */
function readable<T>(value: unknown, ok: (v: Record<string, unknown>) => boolean, what: string): T {
  if (isRecord(value) && ok(value)) return value as T;
  throw new BuyerIntelApiError(
    502,
    'bad_response',
    `The buyer intel service sent ${what} the card cannot read.`,
  );
}

export function undoMethods(call: Call, crm: string, tenant: string): UndoApi {
  const target = (accountId: string) => ({ account: { crm, accountId, tenant } });
  return {
    previewUndo: async (accountId) =>
      readable<UndoPlan>(
        await call('/api/undo', 'POST', { ...target(accountId), dryRun: true }),
        (p) => p.dryRun === true && isRecord(p.totals) && Array.isArray(p.accounts),
        'an undo plan',
      ),
    undo: async (accountId) =>
      readable<UndoQueued>(
        await call('/api/undo', 'POST', { ...target(accountId), dryRun: false }),
        (q) => typeof q.runId === 'string',
        'an undo',
      ),
    // One event of its history is enough: the card reads the run's counts, and the company's history.
    getRun: async (runId) =>
      readable<UndoRun>(
        await call(`/api/runs/${encodeURIComponent(runId)}?limit=1`, 'GET'),
        (r) => typeof r.id === 'string' && isRecord(r.counts),
        'a run',
      ),
  };
}
