// Tasks v3 (/crm/v3/objects/tasks, tasks-v3.json): create (single and batch, with inline associations
// to companies, task→company type 192), read, batch read, update, search, archive and batch archive.
// `hs_timestamp` (the due date) is required to create a task (tasks guide); `hs_task_body` holds at
// most 65,536 characters, as a note body does.
import { validationError } from '../errors.ts';
import type { RouteModule } from '../operation.ts';
import { registerBatchArchive } from './batch-archive.ts';
import { NOTE_BODY_LIMIT } from './notes.ts';
import { registerObjectRoutes } from './objects.ts';

function checkBody(properties: Record<string, unknown>) {
  const body = properties.hs_task_body;
  if (typeof body === 'string' && body.length > NOTE_BODY_LIMIT) {
    return validationError(
      `hs_task_body is ${body.length} characters long; the maximum is ${NOTE_BODY_LIMIT} characters`,
      { context: { propertyName: ['hs_task_body'] } },
    );
  }
  return undefined;
}

export const registerTaskRoutes: RouteModule = (define, ctx) => {
  registerObjectRoutes(define, ctx, 'tasks', {
    checkCreate: (properties) => {
      const timestamp = properties.hs_timestamp;
      if (timestamp === undefined || timestamp === null || timestamp === '') {
        return validationError('hs_timestamp is required to create a task', {
          context: { propertyName: ['hs_timestamp'] },
        });
      }
      return checkBody(properties);
    },
    checkUpdate: checkBody,
  });
  registerBatchArchive(define, ctx, 'tasks');
};
