// The dedupe keys of the notes on many companies at once: one v4 association batch read for all of them
// (POST /crm/v4/associations/companies/notes/batch/read; HubSpot takes up to 1,000 ids, pages each
// id's associations on its own), then the notes' bodies, 100 per notes batch read; the same again for
// the companies' tasks (a follow-up task carries its key in its body as a note does). A backfill's jobs
// share these calls instead of four per company.

import { batchIds } from '../read-batch.ts';
import type { ExistingNote } from '../types.ts';
import { HUBSPOT_BATCH_LIMIT, type HubSpotCalls } from './client.ts';
import { extractNoteKeys } from './note-html.ts';
import { taskNoteId } from './tasks.ts';

/** Companies per `existingNoteKeysOf`: HubSpot's batch size (the association read alone takes 1,000). */
export const NOTE_KEY_BATCH = HUBSPOT_BATCH_LIMIT;

/** HubSpot record ids are numbers; anything else names no company (and would fail the whole batch). */
const COMPANY_ID = /^\d+$/;

type AssociationInput = { id: string; after?: string };

/** Where each engagement type's keys are read from, and how its id reads as one of our note ids. */
const ENGAGEMENTS = {
  notes: { body: 'hs_note_body', operation: 'crm.objects.notes.batchApi.read', idOf: (id: string) => id },
  tasks: { body: 'hs_task_body', operation: 'crm.objects.tasks.batchApi.read', idOf: taskNoteId },
} as const;

export async function existingNoteKeysOf(
  calls: HubSpotCalls,
  accountIds: readonly string[],
): Promise<Map<string, string[]>> {
  const notes = await existingNotesOf(calls, accountIds, 'existingNoteKeysOf');
  return new Map([...notes].map(([id, list]) => [id, [...new Set(list.map((n) => n.dedupeKey))]]));
}

/** The notes and follow-up tasks with our keys on each company, with their ids (tasks' as `task:…`). */
export async function existingNotesOf(
  calls: HubSpotCalls,
  accountIds: readonly string[],
  method = 'existingNotesOf',
): Promise<Map<string, ExistingNote[]>> {
  const ids = batchIds(accountIds, NOTE_KEY_BATCH, method);
  const [notes, tasks] = await Promise.all([keysOf(calls, ids, 'notes'), keysOf(calls, ids, 'tasks')]);
  return new Map(ids.map((id) => [id, [...(notes.get(id) ?? []), ...(tasks.get(id) ?? [])]]));
}

/** The keyed engagements of one type, per company. */
export async function keysOf(
  calls: HubSpotCalls,
  ids: readonly string[],
  type: keyof typeof ENGAGEMENTS,
): Promise<Map<string, ExistingNote[]>> {
  const { body, operation, idOf } = ENGAGEMENTS[type];
  const notesOf = new Map<string, Set<string>>(ids.map((id) => [id, new Set()]));

  // 1. The engagements of every company, a page per company per call until none has more.
  let inputs: AssociationInput[] = ids.filter((id) => COMPANY_ID.test(id)).map((id) => ({ id }));
  const seen = new Set<string>();
  while (inputs.length) {
    const request = inputs;
    // A 207 names the ids HubSpot has no associations for (unknown or deleted companies): none.
    const { data } = await calls.call('crm.associations.v4.batchApi.getPage', () =>
      calls.associations.batchApi.getPageWithHttpInfo('companies', type, { inputs: request }),
    );
    inputs = [];
    for (const result of data.results ?? []) {
      const companyId = String(result._from?.id ?? '');
      const notes = notesOf.get(companyId);
      if (!notes) continue;
      for (const to of result.to ?? []) if (to.toObjectId != null) notes.add(String(to.toObjectId));
      const after = result.paging?.next?.after;
      // A cursor seen before would loop forever: that company's read ends there.
      if (after && !seen.has(`${companyId}:${after}`)) {
        seen.add(`${companyId}:${after}`);
        inputs.push({ id: companyId, after });
      }
    }
  }

  // 2. Their bodies, where the keys are.
  const companiesOf = new Map<string, string[]>();
  for (const [companyId, notes] of notesOf)
    for (const noteId of notes) companiesOf.set(noteId, [...(companiesOf.get(noteId) ?? []), companyId]);
  const found = new Map<string, ExistingNote[]>(ids.map((id) => [id, []]));
  const noteIds = [...companiesOf.keys()];
  for (let start = 0; start < noteIds.length; start += HUBSPOT_BATCH_LIMIT) {
    const chunk = noteIds.slice(start, start + HUBSPOT_BATCH_LIMIT);
    // A 207 lists engagements deleted since the associations were read: they hold no key any more.
    const { data } = await calls.call(operation, () =>
      calls[type].batchApi.readWithHttpInfo(
        { inputs: chunk.map((id) => ({ id })), properties: [body], propertiesWithHistory: [] },
        false,
      ),
    );
    for (const note of data.results ?? []) {
      const keys = extractNoteKeys(note.properties?.[body]);
      for (const companyId of companiesOf.get(note.id) ?? [])
        for (const key of keys) found.get(companyId)?.push({ noteId: idOf(note.id), dedupeKey: key });
    }
  }
  return found;
}
