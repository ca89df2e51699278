// What became of our follow-up Tasks: one SOQL query by Id for up to 200 of them. A Task a person
// deleted is not returned (the query leaves out the recycle bin), so it reads as `deleted`; IsClosed
// says whether its Status is one the org counts as closed (Completed in a new org).

import type { TaskState } from '../types.ts';
import { isRecordId, SALESFORCE_COLLECTION_LIMIT, type SalesforceCalls } from './client.ts';
import { fieldOf, inList } from './notes.ts';

export async function taskStates(calls: SalesforceCalls, noteIds: readonly string[]): Promise<TaskState[]> {
  if (noteIds.length > SALESFORCE_COLLECTION_LIMIT)
    throw new RangeError(
      `taskStates takes at most ${SALESFORCE_COLLECTION_LIMIT} ids, got ${noteIds.length}`,
    );
  // Only well-formed Task ids go into the query: nothing else can be smuggled into it.
  const ids = [...new Set(noteIds.filter((id) => isRecordId(id) && id.startsWith('00T')))];
  const found = new Map<string, { closed: boolean; status: string | null }>();
  if (ids.length)
    await calls.queryAll(
      'query.Task',
      `SELECT Id, Status, IsClosed FROM Task WHERE Id IN (${inList(ids)})`,
      (row) => {
        const id = fieldOf(row, 'Id');
        const status = fieldOf(row, 'Status');
        if (typeof id === 'string')
          found.set(id.slice(0, 15), {
            closed: fieldOf(row, 'IsClosed') === true,
            status: typeof status === 'string' ? status : null,
          });
      },
    );
  return noteIds.map((noteId) => {
    const task = found.get(noteId.slice(0, 15));
    if (!task) return { noteId, state: 'deleted', status: null };
    return { noteId, state: task.closed ? 'completed' : 'open', status: task.status };
  });
}
