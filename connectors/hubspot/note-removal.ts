// Removing notes we created: HubSpot archives them (its recycle bin). The batch archive
// (POST /crm/v3/objects/notes/batch/archive, ≤ 100 ids) answers 204 with no body whatever the ids: the
// OpenAPI documents no per-id outcome, so it cannot tell a note it archived now from one that was
// archived already or never existed. One batch read first asks which notes are still live: those it
// reports as not found are `already_gone`, only the live ones are archived. A note someone archives
// between the two calls is reported `removed`, which is where it ends up either way. Follow-up tasks
// (ids `task:…`) go the same way through the tasks API.

import { type RemovalOutcome, removeNotesOnce } from '../note-removal.ts';
import type { NoteRef, NoteRemovalResult, WriteFailure } from '../types.ts';
import { HUBSPOT_BATCH_LIMIT, type HubSpotCalls } from './client.ts';
import { errorContext, HubSpotRequestError } from './errors.ts';
import { taskIdOf } from './tasks.ts';
import type { BatchAnswer } from './write.ts';

/** The notes or the tasks API, as removal uses it. */
interface Removable {
  what: 'note' | 'task';
  read(calls: HubSpotCalls, ids: string[]): Promise<{ data: BatchAnswer }>;
  archive(calls: HubSpotCalls, ids: string[]): Promise<unknown>;
}

const NOTES: Removable = {
  what: 'note',
  read: (calls, ids) =>
    calls.call('crm.objects.notes.batchApi.read', () =>
      calls.notes.batchApi.readWithHttpInfo(
        { inputs: ids.map((id) => ({ id })), properties: [], propertiesWithHistory: [] },
        false,
      ),
    ),
  archive: (calls, ids) =>
    calls.call('crm.objects.notes.batchApi.archive', () =>
      calls.notes.batchApi.archiveWithHttpInfo({ inputs: ids.map((id) => ({ id })) }),
    ),
};

const TASKS: Removable = {
  what: 'task',
  read: (calls, ids) =>
    calls.call('crm.objects.tasks.batchApi.read', () =>
      calls.tasks.batchApi.readWithHttpInfo(
        { inputs: ids.map((id) => ({ id })), properties: [], propertiesWithHistory: [] },
        false,
      ),
    ),
  archive: (calls, ids) =>
    calls.call('crm.objects.tasks.batchApi.archive', () =>
      calls.tasks.batchApi.archiveWithHttpInfo({ inputs: ids.map((id) => ({ id })) }),
    ),
};

/** HubSpot record ids are numbers; anything else would never name one of our notes. */
const NOTE_ID = /^\d+$/;

export function removeNotes(calls: HubSpotCalls, refs: readonly NoteRef[]): Promise<NoteRemovalResult[]> {
  return removeNotesOnce(refs, HUBSPOT_BATCH_LIMIT, (ids) => removeUnique(calls, ids));
}

async function removeUnique(calls: HubSpotCalls, ids: string[]): Promise<RemovalOutcome[]> {
  const notes = ids.filter((id) => taskIdOf(id) === undefined);
  const tasks = ids.flatMap((id) => taskIdOf(id) ?? []);
  const [noteOutcomes, taskOutcomes] = await Promise.all([
    notes.length ? removeOf(calls, NOTES, notes) : new Map<string, RemovalOutcome>(),
    tasks.length ? removeOf(calls, TASKS, tasks) : new Map<string, RemovalOutcome>(),
  ]);
  return ids.map((id) => {
    const taskId = taskIdOf(id);
    const outcome = taskId === undefined ? noteOutcomes.get(id) : taskOutcomes.get(taskId);
    return outcome ?? { status: undefined, message: `no outcome for ${id}`, permanent: false };
  });
}

async function removeOf(
  calls: HubSpotCalls,
  api: Removable,
  ids: string[],
): Promise<Map<string, RemovalOutcome>> {
  const outcomes = new Map<string, RemovalOutcome>();
  const wellFormed = ids.filter((id) => {
    if (NOTE_ID.test(id)) return true;
    outcomes.set(id, {
      status: 400,
      message: `${JSON.stringify(id)} is no HubSpot ${api.what} id`,
      permanent: true,
    });
    return false;
  });
  const live = wellFormed.length ? await liveOnes(calls, api, wellFormed, outcomes) : [];
  if (live.length) {
    try {
      await api.archive(calls, live);
      for (const id of live) outcomes.set(id, 'removed');
    } catch (err) {
      if (!(err instanceof HubSpotRequestError)) throw err;
      for (const id of live) outcomes.set(id, refused(err, live.length));
    }
  }
  return outcomes;
}

/** The ids HubSpot still holds as live notes (or tasks); the others get their outcome in `outcomes`. */
async function liveOnes(
  calls: HubSpotCalls,
  api: Removable,
  ids: string[],
  outcomes: Map<string, RemovalOutcome>,
): Promise<string[]> {
  let data: BatchAnswer;
  try {
    ({ data } = await api.read(calls, ids));
  } catch (err) {
    if (!(err instanceof HubSpotRequestError)) throw err;
    for (const id of ids) outcomes.set(id, refused(err, ids.length));
    return [];
  }
  const present = new Set<string>();
  for (const note of data.results ?? []) if (typeof note.id === 'string') present.add(note.id);
  // A 207 names the archived or unknown ids in an OBJECT_NOT_FOUND error.
  const gone = new Set<string>();
  for (const error of data.errors ?? []) {
    if (error.category === 'OBJECT_NOT_FOUND') for (const id of errorContext(error).ids ?? []) gone.add(id);
  }
  return ids.filter((id) => {
    if (present.has(id)) return true;
    outcomes.set(
      id,
      gone.has(id)
        ? 'already_gone'
        : {
            status: undefined,
            message: `HubSpot's batch read did not report ${api.what} ${id}`,
            permanent: false,
          },
    );
    return false;
  });
}

/** A 4xx for the whole call: a batch of one is its own culprit; a larger one may pass split up. */
function refused(err: HubSpotRequestError, batchSize: number): WriteFailure {
  return {
    status: err.status,
    message: batchSize === 1 ? err.message : `not removed: HubSpot refused the whole batch (${err.message})`,
    permanent: batchSize === 1,
  };
}
