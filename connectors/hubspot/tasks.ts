// Follow-up tasks on companies (tasks-v3.json): assigned to a HubSpot user (`hubspot_owner_id`), due
// (`hs_timestamp` is a task's due date), prioritised and associated with the company (task→company is
// type 192, HUBSPOT_DEFINED). The dedupe key is hidden in `hs_task_body` exactly as in a note body, so
// the company's tasks answer "already there" as its notes do.
//
// A task id and a note id are both plain numbers in HubSpot: the id we hand back for a task carries
// the prefix `task:`, so that removing it (undo) and reading its state later know which object it is.

import { clipText } from '../../src/shared/text.ts';
import type { NoteDraft, TaskPriority, TaskState } from '../types.ts';
import { HUBSPOT_BATCH_LIMIT, type HubSpotCalls } from './client.ts';
import { errorContext } from './errors.ts';
import { renderNoteHtml } from './note-html.ts';
import type { BatchAnswer } from './write.ts';

/** task → company, HUBSPOT_DEFINED (company → task is 191). */
export const TASK_TO_COMPANY_TYPE_ID = 192;

const TASK_PREFIX = 'task:';
export const taskNoteId = (taskId: string) => `${TASK_PREFIX}${taskId}`;
/** The HubSpot task id in one of our task ids, or undefined for a note id. */
export const taskIdOf = (noteId: string): string | undefined =>
  noteId.startsWith(TASK_PREFIX) ? noteId.slice(TASK_PREFIX.length) : undefined;

const PRIORITY: Record<TaskPriority, string> = { high: 'HIGH', medium: 'MEDIUM', low: 'LOW' };

/**
 * The task's properties. The due time is 17:00 UTC of the due date: midnight UTC would show the day
 * before in every American time zone.
 */
export function taskProperties(draft: NoteDraft): Record<string, string> {
  const task = draft.task;
  if (!task) throw new Error('taskProperties: the draft is no task');
  return {
    hs_task_subject: clipText(draft.title, 255),
    hs_task_body: renderNoteHtml(draft),
    hs_timestamp: `${task.dueDate}T17:00:00.000Z`,
    hs_task_priority: PRIORITY[task.priority],
    hs_task_status: 'NOT_STARTED',
    hs_task_type: 'TODO',
    hubspot_owner_id: task.ownerId,
  };
}

/** One batch read of the tasks (≤ 100): completed, still open, or gone (archived or never there). */
export async function taskStates(calls: HubSpotCalls, noteIds: readonly string[]): Promise<TaskState[]> {
  if (noteIds.length > HUBSPOT_BATCH_LIMIT)
    throw new RangeError(`taskStates takes at most ${HUBSPOT_BATCH_LIMIT} ids, got ${noteIds.length}`);
  const ids = [...new Set(noteIds.flatMap((id) => taskIdOf(id) ?? []))].filter((id) => /^\d+$/.test(id));
  const status = new Map<string, string | null>();
  const gone = new Set<string>();
  if (ids.length) {
    // A 207 names the archived or unknown ids in an OBJECT_NOT_FOUND error.
    const { data } = (await calls.call('crm.objects.tasks.batchApi.read', () =>
      calls.tasks.batchApi.readWithHttpInfo(
        { inputs: ids.map((id) => ({ id })), properties: ['hs_task_status'], propertiesWithHistory: [] },
        false,
      ),
    )) as { data: BatchAnswer };
    for (const task of data.results ?? [])
      if (typeof task.id === 'string') status.set(task.id, task.properties?.hs_task_status ?? null);
    for (const error of data.errors ?? [])
      if (error.category === 'OBJECT_NOT_FOUND') for (const id of errorContext(error).ids ?? []) gone.add(id);
  }
  return noteIds.map((noteId) => {
    const id = taskIdOf(noteId) ?? '';
    if (!status.has(id)) {
      // Neither read nor reported missing: not known to be gone, so taken as still open.
      return { noteId, state: gone.has(id) || !/^\d+$/.test(id) ? 'deleted' : 'open', status: null };
    }
    const value = status.get(id) ?? null;
    return { noteId, state: value === 'COMPLETED' ? 'completed' : 'open', status: value };
  });
}
