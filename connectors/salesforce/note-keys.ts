// The dedupe keys of the notes on Accounts, read from Salesforce: Tasks by `WhatId IN (…)`, or
// ContentNotes through their ContentDocumentLinks (`LinkedEntityId IN (…)`) and the keys on their
// versions. Up to 200 Accounts in one query (two, and one more per 200 notes, for ContentNotes): a
// backfill's jobs share the calls instead of one or two per Account.

import { batchIds } from '../read-batch.ts';
import { AccountNotFoundError, type ExistingNote } from '../types.ts';
import { isRecordId, SALESFORCE_COLLECTION_LIMIT, type SalesforceCalls } from './client.ts';
import { SalesforceRequestError } from './errors.ts';
import { NOTE_KEY_FIELD } from './fields.ts';
import { fieldOf, inList, type NoteMode } from './notes.ts';

/** Ids per `IN (…)` list: 200 × 21 characters keeps a query URL far below any length limit. */
const IN_CHUNK = SALESFORCE_COLLECTION_LIMIT;

export async function existingNoteKeys(
  calls: SalesforceCalls,
  notesAs: NoteMode,
  accountId: string,
): Promise<Set<string>> {
  if (!isRecordId(accountId)) {
    throw new AccountNotFoundError(
      accountId,
      `Salesforce Account ${JSON.stringify(accountId)} is no record id`,
    );
  }
  return new Set((await existingNoteKeysOf(calls, notesAs, [accountId])).get(accountId));
}

export async function existingNoteKeysOf(
  calls: SalesforceCalls,
  notesAs: NoteMode,
  accountIds: readonly string[],
): Promise<Map<string, string[]>> {
  const notes = await existingNotesOf(calls, notesAs, accountIds, 'existingNoteKeysOf');
  return new Map([...notes].map(([id, list]) => [id, [...new Set(list.map((n) => n.dedupeKey))]]));
}

/** The notes with our keys on each Account, with their ids: a Task's, or a ContentNote's document's. */
export async function existingNotesOf(
  calls: SalesforceCalls,
  notesAs: NoteMode,
  accountIds: readonly string[],
  method = 'existingNotesOf',
): Promise<Map<string, ExistingNote[]>> {
  const ids = batchIds(accountIds, IN_CHUNK, method);
  const keysOf = new Map(ids.map((id) => [id, new Map<string, ExistingNote>()]));
  // The answer names an Account by its 18-character id, which starts with the (case-sensitive) 15.
  const askedAs = new Map<string, string[]>();
  for (const id of ids) askedAs.set(id.slice(0, 15), [...(askedAs.get(id.slice(0, 15)) ?? []), id]);
  const add = (accountId: unknown, key: unknown, noteId: unknown) => {
    if (typeof accountId !== 'string' || typeof key !== 'string' || key === '') return;
    if (typeof noteId !== 'string') return;
    // One entry per note and key: a ContentNote's versions each carry the key.
    for (const id of askedAs.get(accountId.slice(0, 15)) ?? [])
      keysOf.get(id)?.set(`${noteId}\u0000${key}`, { noteId, dedupeKey: key });
  };
  // Only well-formed ids (letters and digits) go into the query: nothing else can be smuggled into it.
  const valid = ids.filter((id) => isRecordId(id));
  // Tasks in either form: notes are Tasks in one, follow-ups are Tasks in both.
  if (valid.length) {
    try {
      await calls.queryAll(
        'query',
        `SELECT Id, WhatId, ${NOTE_KEY_FIELD} FROM Task WHERE WhatId IN (${inList(valid)})`,
        (row) => add(fieldOf(row, 'WhatId'), fieldOf(row, NOTE_KEY_FIELD), fieldOf(row, 'Id')),
      );
    } catch (err) {
      // An org set up for ContentNotes before follow-ups existed has no key on Task (until `setup`
      // runs again): then it holds no follow-up Task of ours either.
      const noTaskKey =
        notesAs === 'content-note' &&
        err instanceof SalesforceRequestError &&
        err.errorCode === 'INVALID_FIELD';
      if (!noTaskKey) throw err;
    }
  }
  if (valid.length && notesAs === 'content-note') {
    // ContentDocumentLink must be filtered by LinkedEntityId or ContentDocumentId (Salesforce's rule).
    /** Accounts by the 15-character id of each document linked to them; the ids as Salesforce sent them. */
    const accountsOf = new Map<string, string[]>();
    const documents = new Set<string>();
    await calls.queryAll(
      'query.ContentDocumentLink',
      `SELECT ContentDocumentId, LinkedEntityId FROM ContentDocumentLink WHERE LinkedEntityId IN (${inList(valid)})`,
      (row) => {
        const doc = fieldOf(row, 'ContentDocumentId');
        const account = fieldOf(row, 'LinkedEntityId');
        if (typeof doc !== 'string' || !isRecordId(doc) || typeof account !== 'string') return;
        accountsOf.set(doc.slice(0, 15), [...(accountsOf.get(doc.slice(0, 15)) ?? []), account]);
        documents.add(doc);
      },
    );
    // Every version, not only the latest: a person editing the note in Salesforce adds a version that
    // does not carry our key, and the note must still count as created.
    const docs = [...documents];
    for (let i = 0; i < docs.length; i += IN_CHUNK) {
      const chunk = docs.slice(i, i + IN_CHUNK);
      await calls.queryAll(
        'query.ContentVersion',
        `SELECT ContentDocumentId, ${NOTE_KEY_FIELD} FROM ContentVersion WHERE ContentDocumentId IN (${inList(chunk)}) AND FileType = 'SNOTE'`,
        (row) => {
          const doc = fieldOf(row, 'ContentDocumentId');
          const key = fieldOf(row, NOTE_KEY_FIELD);
          if (typeof doc !== 'string') return;
          for (const account of accountsOf.get(doc.slice(0, 15)) ?? []) add(account, key, doc);
        },
      );
    }
  }
  return new Map([...keysOf].map(([id, notes]) => [id, [...notes.values()]]));
}
