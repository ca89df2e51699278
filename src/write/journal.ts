// What a write leaves on the record. The writer (batched-writes.ts) hands every CRM answer to a journal
// — the store's write history, wired in src/service — together with where the write came from: the
// run, the job, the buyer, and per field what it held and why we sent our value. Nothing here is sent
// to the CRM.
import type { AccountUpdate, NoteDraft, NoteResult, UpdateResult } from '../../connectors/types.ts';

export type FieldKind = 'mapped' | 'provenance';

/**
 * Why a field was written or kept: the mapped field's policy decision (`write`, `blocked-…`), or
 * `provenance`, `duplicate-mark`, `failure-mark` for the fields that record the match itself.
 */
export type WriteDecision = string;

/** Who asked for a write. */
export interface WriteOrigin {
  runId?: string | undefined;
  jobId?: string | undefined;
  /** What asked (webhook, refresh, backfill, cli, signal, digest…), whether or not a run names it. */
  trigger?: string | undefined;
  buyerId?: string | null | undefined;
  /** The provider row a note or task stands for (a follow-up task closes it when done). */
  signal?: { bridgeId: string; rowId: string } | undefined;
}

/** One field of a write: the value it held before and the decision that sent ours. */
export interface FieldReason {
  /** The CRM's value before the write (null: empty, or not known — a failure mark's). */
  old: string | null;
  decision: WriteDecision;
  kind: FieldKind;
  attribute?: string | null | undefined;
  policy?: string | null | undefined;
}

export interface WriteContext extends WriteOrigin {
  /** Per field sent. A field not described is recorded as provenance whose old value is not known. */
  fields?: Record<string, FieldReason> | undefined;
}

export interface FieldWriteEntry {
  crm: string;
  tenant: string;
  accountId: string;
  runId: string | null;
  jobId: string | null;
  trigger: string | null;
  buyerId: string | null;
  field: string;
  attribute: string | null;
  kind: FieldKind;
  policy: string | null;
  old: string | null;
  new: string | null;
  decision: WriteDecision;
  /**
   * `not_sent`: a policy kept the CRM's value; recorded for people, never undone. `pending`: recorded
   * before the CRM call, not yet settled with its answer.
   */
  result: 'ok' | 'error' | 'not_sent' | 'pending';
  error: string | null;
  at: Date;
}

export interface NoteEntry {
  crm: string;
  tenant: string;
  accountId: string;
  runId: string | null;
  jobId: string | null;
  trigger: string | null;
  buyerId: string | null;
  noteId: string;
  dedupeKey: string;
  title: string | null;
  /** Set for a follow-up task: whom it was assigned to and the provider row it closes. */
  followUp?: { ownerId: string; bridgeId: string; rowId: string } | undefined;
  at: Date;
}

/** Where the writer records what the CRM answered (the store's write history). */
export interface WriteJournal {
  recordFieldWrites(entries: readonly FieldWriteEntry[]): Promise<void>;
  /** Records entries as pending before their CRM call: their ids, in the entries' order. */
  recordPendingFieldWrites?(entries: readonly FieldWriteEntry[]): Promise<string[]>;
  /** Settles pending rows with the CRM's answers. */
  settleFieldWrites?(settled: readonly PendingSettlement[]): Promise<void>;
  recordNotes(entries: readonly NoteEntry[]): Promise<void>;
  /** Records notes as pending before their CRM call: their ids, in the entries' order. */
  recordPendingNotes?(entries: readonly PendingNoteEntry[]): Promise<string[]>;
  /**
   * Settles pending notes: created ones go on the record with the CRM's id, the others are dropped; the
   * follow-up tasks among the created (their entries) are watched from now on, in the same statement set.
   */
  settleNotes?(settled: readonly NoteSettlement[], followUps?: readonly NoteEntry[]): Promise<void>;
}

/** A note about to be created: its CRM id is not known yet. */
export type PendingNoteEntry = Omit<NoteEntry, 'noteId'>;

export interface NoteSettlement {
  id: string;
  /** The CRM's id of the note; null: the CRM did not create it. */
  noteId: string | null;
}

export interface PendingSettlement {
  id: string;
  result: 'ok' | 'error';
  error: string | null;
}

const MAX_ERROR_CHARS = 500;

function originOf(o: WriteOrigin | undefined) {
  return {
    runId: o?.runId ?? null,
    jobId: o?.jobId ?? null,
    trigger: o?.trigger ?? null,
    buyerId: o?.buyerId ?? null,
  };
}

/** One entry per field of the update, with the CRM's answer for the account. */
export function fieldEntriesOf(
  crm: string,
  tenant: string,
  update: AccountUpdate,
  result: UpdateResult,
  context: WriteContext | undefined,
  at: Date,
): FieldWriteEntry[] {
  const error = result.ok
    ? null
    : `${result.error.status ? `${result.error.status}: ` : ''}${result.error.message}`.slice(
        0,
        MAX_ERROR_CHARS,
      );
  return Object.entries(update.fields).map(([field, value]) => {
    const why = context?.fields?.[field];
    return {
      crm,
      tenant,
      accountId: update.accountId,
      ...originOf(context),
      field,
      attribute: why?.attribute ?? null,
      kind: why?.kind ?? 'provenance',
      policy: why?.policy ?? null,
      old: why?.old ?? null,
      new: value,
      decision: why?.decision ?? 'provenance',
      result: result.ok ? 'ok' : 'error',
      error,
      at,
    };
  });
}

/** A note as recorded before its CRM call. */
export function pendingNoteOf(
  crm: string,
  tenant: string,
  note: NoteDraft,
  origin: WriteOrigin | undefined,
  at: Date,
): PendingNoteEntry {
  return {
    crm,
    tenant,
    accountId: note.accountId,
    ...originOf(origin),
    dedupeKey: note.dedupeKey,
    title: note.title,
    at,
  };
}

/** The note as recorded, when the CRM created it (a refused note left nothing to record). */
export function noteEntryOf(
  crm: string,
  tenant: string,
  note: NoteDraft,
  result: NoteResult,
  origin: WriteOrigin | undefined,
  at: Date,
): NoteEntry | null {
  if (!result.ok) return null;
  return {
    crm,
    tenant,
    accountId: note.accountId,
    ...originOf(origin),
    noteId: result.noteId,
    dedupeKey: result.dedupeKey,
    title: note.title,
    ...(note.task && origin?.signal ? { followUp: { ownerId: note.task.ownerId, ...origin.signal } } : {}),
    at,
  };
}
