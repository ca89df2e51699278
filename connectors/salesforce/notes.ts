// Size: both note forms (Task, ContentNote) share one dedupe and failure path; apart they would repeat it.
// Notes on an Account, in one of two forms (a follow-up is an open Task assigned to a user, in both).
// 'task' (the default): a completed Task, one collection
// create per batch, its dedupe key in BuyerIntel_Key__c and on the last line of its Description.
// 'content-note': a ContentNote linked to the Account by a ContentDocumentLink, four collection/query
// calls per batch, its key in BuyerIntel_Key__c of its ContentVersion (a ContentNote takes no custom
// fields). Either way the keys are read back from Salesforce (note-keys.ts), not from our own state.

import { clipText } from '../../src/shared/text.ts';
import { createNotesOnce, type NoteOutcome } from '../note-batch.ts';
import type { NoteDraft, NoteResult, WriteFailure } from '../types.ts';
import {
  refusedFailure,
  SALESFORCE_COLLECTION_LIMIT,
  type SalesforceCalls,
  type SaveResultLike,
} from './client.ts';
import { SalesforceRequestError } from './errors.ts';
import { NOTE_KEY_FIELD } from './fields.ts';

const SUBJECT_MAX = 255;
/** Task.Description is a 32,000-character text area. */
const DESCRIPTION_MAX = 32_000;
/** ContentNote.Title is a 255-character text. */
const NOTE_TITLE_MAX = 255;

/** How notes are stored: see SalesforceConnectorOptions.notes. */
export type NoteMode = 'task' | 'content-note';

/** A draft's body as note HTML: every line a paragraph, its text HTML-escaped (Salesforce requires it). */
export function noteHtml(body: string): string {
  const escapeHtml = (text: string) =>
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;');
  return body
    .split(/\r\n|\r|\n/)
    .map((line) => (line.trim() === '' ? '<p><br></p>' : `<p>${escapeHtml(line)}</p>`))
    .join('')
    .replace(/^(?:<p><br><\/p>)+|(?:<p><br><\/p>)+$/g, '');
}

/** The line that carries a note's key at the end of a Task's Description. */
export const NOTE_KEY_LINE_PREFIX = 'buyer-intel-key: ';

/** YYYY-MM-DD of an ISO timestamp (UTC), or undefined when unparseable. */
function activityDate(occurredAt: string): string | undefined {
  if (/^\d{4}-\d\d-\d\d$/.test(occurredAt)) return occurredAt;
  const ms = Date.parse(occurredAt);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString().slice(0, 10);
}

/** A row's value of a field, whatever case Salesforce answered its name in. */
export const fieldOf = (row: Record<string, unknown>, field: string): unknown =>
  Object.entries(row).find(([k]) => k.toLowerCase() === field.toLowerCase())?.[1];

export const inList = (ids: readonly string[]) => ids.map((id) => `'${id}'`).join(', ');

export function createNotes(
  calls: SalesforceCalls,
  notesAs: NoteMode,
  drafts: readonly NoteDraft[],
): Promise<NoteResult[]> {
  return createNotesOnce(drafts, SALESFORCE_COLLECTION_LIMIT, async (unique) => {
    if (notesAs !== 'content-note') return createTasks(calls, unique);
    // A follow-up is a Task whatever form notes take: one call each, the answers merged back in order.
    const tasks = unique.filter((d) => d.task);
    const notes = unique.filter((d) => !d.task);
    const [taskOutcomes, noteOutcomes] = await Promise.all([
      tasks.length ? createTasks(calls, tasks) : [],
      notes.length ? createContentNotes(calls, notes) : [],
    ]);
    let t = 0;
    let n = 0;
    return unique.map(
      (d) =>
        (d.task ? taskOutcomes[t++] : noteOutcomes[n++]) ?? {
          status: undefined,
          message: 'no outcome',
          permanent: false,
        },
    );
  });
}

const PRIORITY = { high: 'High', medium: 'Normal', low: 'Low' } as const;

/** A note is a completed Task; a follow-up is an open one, assigned and due. */
function taskState(draft: NoteDraft): Record<string, string> {
  const task = draft.task;
  if (!task) {
    const date = activityDate(draft.occurredAt);
    return { ...(date ? { ActivityDate: date } : {}), Status: 'Completed' };
  }
  return {
    OwnerId: task.ownerId,
    ActivityDate: task.dueDate,
    Priority: PRIORITY[task.priority],
    Status: 'Not Started',
  };
}

/** Notes as completed Tasks: one collection create. */
async function createTasks(calls: SalesforceCalls, unique: readonly NoteDraft[]): Promise<NoteOutcome[]> {
  const { conn, call, recordFailure } = calls;
  const records = unique.map((draft) => {
    const keyLine = `${NOTE_KEY_LINE_PREFIX}${draft.dedupeKey}`;
    const body = draft.body.slice(0, DESCRIPTION_MAX - keyLine.length - 2);
    return {
      WhatId: draft.accountId,
      Subject: clipText(draft.title, SUBJECT_MAX),
      Description: body ? `${body}\n\n${keyLine}` : keyLine,
      ...taskState(draft),
      [NOTE_KEY_FIELD]: draft.dedupeKey,
    };
  });

  try {
    const results = (await call('composite.sobjects.create', () =>
      conn.sobject('Task').create(records, { allOrNone: false }),
    )) as SaveResultLike[];
    return unique.map((draft, i) => {
      const result = results[i];
      if (result?.success === true && typeof result.id === 'string') return { noteId: result.id };
      if (!result) {
        return {
          status: undefined,
          message: "Salesforce's answer did not report the Task",
          permanent: false,
        };
      }
      // A follow-up names its owner (OwnerId) too: an unknown one answers the same code as the Account.
      return recordFailure(result.errors, `Task for Salesforce Account ${draft.accountId}`, {
        otherReferences: draft.task !== undefined,
      });
    });
  } catch (err) {
    if (!(err instanceof SalesforceRequestError)) throw err;
    const failure = refusedFailure(err);
    return unique.map(() => failure);
  }
}

/**
 * Notes as ContentNotes, four calls for the batch: create the notes (collection), read their
 * ContentVersion ids (one query), write each key on its version (collection), link each note to its
 * Account with ShareType 'V' (collection). A note that failed after it was created is deleted (one
 * more call) so no half-made note stays behind: unlinked it would be invisible, unkeyed it would be
 * made again. Key before link: a note becomes visible on the Account only once it carries its key.
 */
async function createContentNotes(
  calls: SalesforceCalls,
  unique: readonly NoteDraft[],
): Promise<NoteOutcome[]> {
  const { conn, call, queryAll, recordFailure } = calls;
  const outcomes: (NoteOutcome | undefined)[] = unique.map(() => undefined);
  /** Created note ids by draft index, while the note is still on its way. */
  const pending = new Map<number, string>();
  const subject = (i: number) => `ContentNote for Salesforce Account ${unique[i]?.accountId ?? '?'}`;
  const fail = (i: number, failure: WriteFailure) => {
    outcomes[i] = failure;
  };
  /** Runs one step's call; a refused call fails every pending note with the reason. */
  const step = async <T>(send: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await send();
    } catch (err) {
      if (!(err instanceof SalesforceRequestError)) {
        await discard(calls, [...pending.values()]).catch(() => undefined);
        throw err;
      }
      const failure = refusedFailure(err);
      for (const i of pending.keys()) if (!outcomes[i]) fail(i, failure);
      return undefined;
    }
  };
  /** Collection results for the given pending indices: failures recorded, the rest stay pending. */
  const settle = (indices: number[], results: SaveResultLike[] | undefined, what: string) => {
    if (!results) return;
    indices.forEach((i, n) => {
      const result = results[n];
      if (result?.success === true) return;
      fail(
        i,
        result
          ? // A version's key and a link name the note as well as the Account: an unknown id may be either.
            recordFailure(result.errors, `${subject(i)} (${what})`, { otherReferences: true })
          : {
              status: undefined,
              message: `Salesforce's answer did not report the ${what}`,
              permanent: false,
            },
      );
    });
  };

  // 1. The notes.
  const notes = unique.map((draft) => ({
    Title: clipText(draft.title.trim() || 'Buyer Intel signal', NOTE_TITLE_MAX),
    Content: Buffer.from(noteHtml(draft.body), 'utf8').toString('base64'),
  }));
  let created: SaveResultLike[];
  try {
    created = (await call('composite.sobjects.create.ContentNote', () =>
      conn.sobject('ContentNote').create(notes, { allOrNone: false }),
    )) as SaveResultLike[];
  } catch (err) {
    if (!(err instanceof SalesforceRequestError)) throw err;
    const failure = refusedFailure(err);
    return unique.map(() => failure);
  }
  unique.forEach((_, i) => {
    const result = created[i];
    if (result?.success === true && typeof result.id === 'string') pending.set(i, result.id);
    else
      fail(
        i,
        result
          ? recordFailure(result.errors, subject(i))
          : {
              status: undefined,
              message: "Salesforce's answer did not report the ContentNote",
              permanent: false,
            },
      );
  });

  // 2. Their versions (a ContentNote's id is its ContentDocument id).
  const versionOf = new Map<string, string>();
  if (pending.size) {
    const ids = [...pending.values()];
    await step(() =>
      queryAll(
        'query.ContentVersion',
        `SELECT Id, ContentDocumentId FROM ContentVersion WHERE ContentDocumentId IN (${inList(ids)}) AND IsLatest = true`,
        (row) => {
          const doc = fieldOf(row, 'ContentDocumentId');
          const id = fieldOf(row, 'Id');
          if (typeof doc === 'string' && typeof id === 'string') versionOf.set(doc.slice(0, 15), id);
        },
      ),
    );
  }

  // 3. The key on each version.
  const keyed = [...pending.entries()].filter(([i, noteId]) => {
    if (outcomes[i]) return false;
    if (versionOf.has(noteId.slice(0, 15))) return true;
    fail(i, {
      status: undefined,
      message: `${subject(i)}: no ContentVersion found for ${noteId}`,
      permanent: false,
    });
    return false;
  });
  if (keyed.length) {
    const records = keyed.map(([i, noteId]) => ({
      Id: versionOf.get(noteId.slice(0, 15)) ?? '',
      [NOTE_KEY_FIELD]: unique[i]?.dedupeKey ?? '',
    }));
    const results = await step(
      async () =>
        (await call('composite.sobjects.update.ContentVersion', () =>
          conn.sobject('ContentVersion').update(records, { allOrNone: false }),
        )) as SaveResultLike[],
    );
    settle(
      keyed.map(([i]) => i),
      results,
      'key on its ContentVersion',
    );
  }

  // 4. The link to the Account.
  const linking = [...pending.entries()].filter(([i]) => !outcomes[i]);
  if (linking.length) {
    const records = linking.map(([i, noteId]) => ({
      ContentDocumentId: noteId,
      LinkedEntityId: unique[i]?.accountId ?? '',
      ShareType: 'V',
    }));
    const results = await step(
      async () =>
        (await call('composite.sobjects.create.ContentDocumentLink', () =>
          conn.sobject('ContentDocumentLink').create(records, { allOrNone: false }),
        )) as SaveResultLike[],
    );
    settle(
      linking.map(([i]) => i),
      results,
      'link to the Account',
    );
  }

  // 5. Done, or deleted.
  const failedNotes = [...pending.entries()].filter(([i]) => outcomes[i]);
  for (const [i, noteId] of pending) if (!outcomes[i]) outcomes[i] = { noteId };
  if (failedNotes.length) {
    const left = await discard(
      calls,
      failedNotes.map(([, id]) => id),
    ).catch(() => new Set(failedNotes.map(([, id]) => id)));
    for (const [i, noteId] of failedNotes) {
      const outcome = outcomes[i];
      if (left.has(noteId) && outcome && !('noteId' in outcome))
        outcomes[i] = {
          ...outcome,
          message: `${outcome.message} (ContentNote ${noteId} was left behind unlinked)`,
        };
    }
  }
  return outcomes.map((o) => o ?? { status: undefined, message: 'no outcome', permanent: false });
}

/** Deletes half-made notes (one collection call); the ids it could not delete. */
async function discard(calls: SalesforceCalls, noteIds: readonly string[]): Promise<Set<string>> {
  const { conn, call } = calls;
  if (noteIds.length === 0) return new Set();
  const results = (await call('composite.sobjects.delete', () =>
    conn.sobject('ContentNote').destroy([...noteIds], { allOrNone: false }),
  )) as SaveResultLike[];
  return new Set(noteIds.filter((_, n) => results[n]?.success !== true));
}
