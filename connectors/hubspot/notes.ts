// Notes on companies: one batch create with inline associations per call, and the dedupe keys of the
// notes a company already has.
//
// Notes carry their dedupe key in the note body (see note-html.ts), so `existingNoteKeys` reads the
// truth from HubSpot itself: the company's note associations (v4), then the notes' bodies in batches.

import { createNotesOnce, type NoteOutcome } from '../note-batch.ts';
import { AccountNotFoundError, type NoteDraft, type NoteResult, type WriteFailure } from '../types.ts';
import { HUBSPOT_BATCH_LIMIT, type HubSpotCalls } from './client.ts';
import {
  errorContext,
  HubSpotRequestError,
  invalidCompanyIds,
  isStatus,
  rejectedProperties,
} from './errors.ts';
import { extractNoteKeys, renderNoteHtml } from './note-html.ts';
import { keysOf } from './note-keys.ts';
import { TASK_TO_COMPANY_TYPE_ID, taskNoteId, taskProperties } from './tasks.ts';
import { type BatchAnswer, type BatchError, recordFailure } from './write.ts';

/** note → company, HUBSPOT_DEFINED (company → note is 189). */
const NOTE_TO_COMPANY_TYPE_ID = 190;
/** The largest page of the v4 association list. */
const ASSOCIATION_PAGE_SIZE = 500;

type NotesBatchCreate = Parameters<HubSpotCalls['notes']['batchApi']['createWithHttpInfo']>[0];
type NoteCreateInput = NotesBatchCreate['inputs'][number];
type AssociationCategory = NonNullable<
  NoteCreateInput['associations']
>[number]['types'][number]['associationCategory'];

/** The ISO timestamp HubSpot expects for hs_timestamp (passed through unchanged when unparseable). */
function noteTimestamp(occurredAt: string): string {
  const ms = Date.parse(occurredAt);
  return Number.isNaN(ms) ? occurredAt : new Date(ms).toISOString();
}

export function createNotes(calls: HubSpotCalls, drafts: readonly NoteDraft[]): Promise<NoteResult[]> {
  return createNotesOnce(drafts, HUBSPOT_BATCH_LIMIT, async (unique) => {
    // Notes and follow-up tasks are two object types: one batch create each, answers merged in order.
    const notes = unique.filter((d) => !d.task);
    const tasks = unique.filter((d) => d.task);
    const [noteOutcomes, taskOutcomes] = await Promise.all([
      notes.length ? createEngagements(calls, NOTE_KIND, notes) : [],
      tasks.length ? createEngagements(calls, TASK_KIND, tasks) : [],
    ]);
    let n = 0;
    let t = 0;
    return unique.map((d): NoteOutcome => {
      const outcome = d.task ? taskOutcomes[t++] : noteOutcomes[n++];
      if (!outcome) return { status: undefined, message: 'no outcome', permanent: false };
      return d.task && 'noteId' in outcome ? { noteId: taskNoteId(outcome.noteId) } : outcome;
    });
  });
}

/** What differs between creating notes and creating tasks on companies. */
interface EngagementKind {
  operation: string;
  /** The HTML property the dedupe marker lives in. */
  bodyProperty: string;
  associationTypeId: number;
  properties(draft: NoteDraft): Record<string, string>;
  send(calls: HubSpotCalls, inputs: NoteCreateInput[]): Promise<{ status: number; data: BatchAnswer }>;
}

const NOTE_KIND: EngagementKind = {
  operation: 'crm.objects.notes.batchApi.create',
  bodyProperty: 'hs_note_body',
  associationTypeId: NOTE_TO_COMPANY_TYPE_ID,
  properties: (draft) => ({
    hs_timestamp: noteTimestamp(draft.occurredAt),
    hs_note_body: renderNoteHtml(draft),
  }),
  send: (calls, inputs) =>
    calls.call(NOTE_KIND.operation, () => calls.notes.batchApi.createWithHttpInfo({ inputs })),
};

const TASK_KIND: EngagementKind = {
  operation: 'crm.objects.tasks.batchApi.create',
  bodyProperty: 'hs_task_body',
  associationTypeId: TASK_TO_COMPANY_TYPE_ID,
  properties: taskProperties,
  send: (calls, inputs) =>
    calls.call(TASK_KIND.operation, () => calls.tasks.batchApi.createWithHttpInfo({ inputs })),
};

async function createEngagements(
  calls: HubSpotCalls,
  kind: EngagementKind,
  unique: NoteDraft[],
): Promise<NoteOutcome[]> {
  const category = 'HUBSPOT_DEFINED' as AssociationCategory;
  const inputs: NoteCreateInput[] = unique.map((draft, i) => ({
    properties: kind.properties(draft),
    associations: [
      {
        to: { id: draft.accountId },
        types: [{ associationCategory: category, associationTypeId: kind.associationTypeId }],
      },
    ],
    objectWriteTraceId: String(i),
  }));

  try {
    const answer = await kind.send(calls, inputs);
    return matchCreated(calls.redact, unique, answer.data, answer.status, kind.bodyProperty);
  } catch (err) {
    if (!(err instanceof HubSpotRequestError)) throw err;
    return notesRefused(err, unique);
  }
}

/** Pairs a batch create's results and errors with its inputs. */
function matchCreated(
  redact: (text: string) => string,
  notes: NoteDraft[],
  data: BatchAnswer,
  status: number,
  bodyProperty: string,
): ({ noteId: string } | WriteFailure)[] {
  const outcomes: ({ noteId: string } | WriteFailure | undefined)[] = notes.map(() => undefined);
  const unattributed: WriteFailure[] = [];
  for (const error of data.errors ?? []) {
    let attributed = false;
    for (const traceId of errorContext(error).objectWriteTraceId ?? []) {
      const index = Number(traceId);
      if (Number.isInteger(index) && index >= 0 && index < notes.length) {
        outcomes[index] = noteFailure(redact, error, notes[index]?.accountId);
        attributed = true;
      }
    }
    if (!attributed) unattributed.push(noteFailure(redact, error, undefined));
  }
  const open = (index: number) => outcomes[index] === undefined;
  const leftovers: string[] = [];
  for (const result of data.results ?? []) {
    if (typeof result.id !== 'string') continue;
    // HubSpot echoes objectWriteTraceId on results; without it, our marker in the body says which.
    let index = typeof result.objectWriteTraceId === 'string' ? Number(result.objectWriteTraceId) : -1;
    if (!(Number.isInteger(index) && index >= 0 && index < notes.length && open(index))) {
      const keys = extractNoteKeys(result.properties?.[bodyProperty]);
      index = notes.findIndex((n, i) => open(i) && keys.includes(n.dedupeKey));
    }
    if (index >= 0) outcomes[index] = { noteId: result.id };
    else leftovers.push(result.id);
  }
  // Anything still unmatched pairs up in input order (HubSpot answers in input order in practice).
  return outcomes.map((outcome) => {
    if (outcome) return outcome;
    const noteId = leftovers.shift();
    if (noteId) return { noteId };
    return (
      unattributed[0] ?? {
        status: undefined,
        message: `HubSpot's batch answer (${status}) did not report this note`,
        permanent: false,
      }
    );
  });
}

/** A 4xx for the whole note batch: notes for companies HubSpot named as invalid fail for good. */
function notesRefused(err: HubSpotRequestError, notes: NoteDraft[]): WriteFailure[] {
  const invalidCompanies = invalidCompanyIds(err.context);
  return notes.map((note) => {
    if (invalidCompanies.has(note.accountId)) {
      return {
        status: err.status,
        message: `HubSpot company ${note.accountId} does not exist: ${err.hubspotMessage || err.message}`,
        permanent: true,
      };
    }
    return {
      status: err.status,
      message:
        notes.length === 1 ? err.message : `not created: HubSpot refused the whole batch (${err.message})`,
      permanent: notes.length === 1 && invalidCompanies.size === 0,
    };
  });
}

/** A 207 error of a note create: a missing company is permanent (it would never take the note). */
function noteFailure(
  redact: (text: string) => string,
  error: BatchError,
  accountId: string | undefined,
): WriteFailure {
  const context = errorContext(error);
  const invalid = invalidCompanyIds(context);
  // Each note has one association, to its company: "associations are invalid" means the company is gone.
  const badAssociation =
    error.category === 'VALIDATION_ERROR' &&
    typeof error.message === 'string' &&
    /association/i.test(error.message) &&
    rejectedProperties(error).length === 0;
  if (accountId && (invalid.has(accountId) || error.category === 'OBJECT_NOT_FOUND' || badAssociation)) {
    const message = redact(typeof error.message === 'string' ? error.message : '');
    return {
      status: 400,
      message: `HubSpot company ${accountId} does not exist: ${message}`,
      permanent: true,
    };
  }
  return recordFailure(redact, error);
}

export async function existingNoteKeys(calls: HubSpotCalls, accountId: string): Promise<Set<string>> {
  const noteIds = new Set<string>();
  const seenCursors = new Set<string>();
  let after: string | undefined;
  do {
    const cursor = after;
    let page: { results?: { toObjectId?: unknown }[]; paging?: { next?: { after?: string } } };
    try {
      ({ data: page } = await calls.call('crm.associations.v4.basicApi.getPage', () =>
        calls.associations.basicApi.getPageWithHttpInfo(
          'companies',
          accountId,
          'notes',
          cursor,
          ASSOCIATION_PAGE_SIZE,
        ),
      ));
    } catch (err) {
      if (isStatus(err, 404))
        throw new AccountNotFoundError(accountId, `HubSpot company ${accountId} not found`);
      throw err;
    }
    for (const association of page.results ?? []) {
      if (association.toObjectId !== undefined && association.toObjectId !== null) {
        noteIds.add(String(association.toObjectId));
      }
    }
    after = page.paging?.next?.after;
    if (after !== undefined) {
      if (seenCursors.has(after)) break;
      seenCursors.add(after);
    }
  } while (after !== undefined);

  const keys = new Set<string>();
  const ids = [...noteIds];
  for (let start = 0; start < ids.length; start += HUBSPOT_BATCH_LIMIT) {
    const chunk = ids.slice(start, start + HUBSPOT_BATCH_LIMIT);
    // A 207 lists notes deleted since the association was read: they hold no key any more.
    const { data } = await calls.call('crm.objects.notes.batchApi.read', () =>
      calls.notes.batchApi.readWithHttpInfo(
        { inputs: chunk.map((id) => ({ id })), properties: ['hs_note_body'], propertiesWithHistory: [] },
        false,
      ),
    );
    for (const note of data.results ?? []) {
      for (const key of extractNoteKeys(note.properties?.hs_note_body)) keys.add(key);
    }
  }
  // Follow-up tasks carry their keys as notes do.
  for (const task of (await keysOf(calls, [accountId], 'tasks')).get(accountId) ?? [])
    keys.add(task.dedupeKey);
  return keys;
}
