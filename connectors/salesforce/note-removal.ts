// Removing notes we created: one sObject Collections delete (DELETE /composite/sobjects?ids=…,
// allOrNone false, ≤ 200 ids) per batch, whichever form the notes took. A Task goes to the recycle bin.
// A ContentNote's id is its ContentDocument's id: deleting it deletes the document with its versions
// and its ContentDocumentLinks, so it leaves the Account's Notes list. Results come in request order;
// a failed one may carry no id (Salesforce's own example), so they are matched by position.

import { type RemovalOutcome, removeNotesOnce } from '../note-removal.ts';
import type { NoteRef, NoteRemovalResult } from '../types.ts';
import {
  isRecordId,
  refusedFailure,
  SALESFORCE_COLLECTION_LIMIT,
  type SalesforceCalls,
  type SaveResultLike,
} from './client.ts';
import { isRecord, SalesforceRequestError } from './errors.ts';

/** Key prefixes of the two note forms: Task, and ContentDocument (a ContentNote's id). */
const NOTE_PREFIXES: Record<string, string> = { '00T': 'Task', '069': 'ContentNote' };

/**
 * The note no longer exists: in the recycle bin (ENTITY_IS_DELETED), or no record by that id any more
 * (purged from the recycle bin: NOT_FOUND, or INVALID_CROSS_REFERENCE_KEY as some calls say it).
 */
const GONE_CODES = new Set(['ENTITY_IS_DELETED', 'NOT_FOUND', 'INVALID_CROSS_REFERENCE_KEY']);

export function removeNotes(calls: SalesforceCalls, refs: readonly NoteRef[]): Promise<NoteRemovalResult[]> {
  return removeNotesOnce(refs, SALESFORCE_COLLECTION_LIMIT, (ids) => removeUnique(calls, ids));
}

async function removeUnique(calls: SalesforceCalls, ids: string[]): Promise<RemovalOutcome[]> {
  const { conn, call, recordFailure } = calls;
  const outcomes = new Map<string, RemovalOutcome>();
  // The delete takes ids of any object: only ids of a note form go out, so a mistaken Account id can
  // never delete the Account. Either form, whatever SALESFORCE_NOTES says now: it may have changed
  // since the notes were created.
  const sendable = ids.filter((id) => {
    if (isRecordId(id) && NOTE_PREFIXES[id.slice(0, 3)]) return true;
    outcomes.set(id, {
      status: 400,
      message: `${JSON.stringify(id)} is no Task or ContentNote id`,
      permanent: true,
    });
    return false;
  });
  if (sendable.length) {
    try {
      // jsforce sends only the ids; the object type it is called on is not part of the request.
      const results = (await call('composite.sobjects.delete', () =>
        conn.sobject('Task').destroy(sendable, { allOrNone: false }),
      )) as SaveResultLike[];
      sendable.forEach((id, i) => {
        const result = results[i];
        const subject = `${NOTE_PREFIXES[id.slice(0, 3)]} ${id}`;
        if (result?.success === true) outcomes.set(id, 'removed');
        else if (!result)
          outcomes.set(id, {
            status: undefined,
            message: `Salesforce's answer did not report ${subject}`,
            permanent: false,
          });
        else if (GONE_CODES.has(firstCode(result.errors))) outcomes.set(id, 'already_gone');
        else outcomes.set(id, recordFailure(result.errors, subject));
      });
    } catch (err) {
      if (!(err instanceof SalesforceRequestError)) throw err;
      const failure = refusedFailure(err);
      for (const id of sendable) outcomes.set(id, failure);
    }
  }
  return ids.map(
    (id) => outcomes.get(id) ?? { status: undefined, message: `no outcome for note ${id}`, permanent: false },
  );
}

function firstCode(errors: unknown): string {
  const first = Array.isArray(errors) ? errors.find(isRecord) : undefined;
  return first && typeof first.statusCode === 'string' ? first.statusCode : '';
}
