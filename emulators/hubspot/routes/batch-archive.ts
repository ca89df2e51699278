// Batch archive (POST /crm/v3/objects/{type}/batch/archive in notes-v3.json and companies-v3.json): up to
// 100 `{id}` inputs, answered 204 with no body. The spec declares only the 204 and the error default,
// no per-id outcome: an id that is archived already or never existed does not fail the batch (HubSpot's
// lenient answer; not checked against a live portal), so the caller cannot learn which ids it archived.
// A malformed body or more than 100 inputs is a 400 and archives nothing. Archived records go to the
// recycle bin: they leave every list, search and association read (store.ts).
import { validationError } from '../errors.ts';
import type { ObjectType } from '../object-types.ts';
import type { DefineOperation, OperationContext } from '../operation.ts';
import { isRecord } from '../request.ts';
import { batchInputs, opName } from './objects.ts';

export function registerBatchArchive(define: DefineOperation, ctx: OperationContext, type: ObjectType): void {
  define('post', `/crm/v3/objects/${type}/batch/archive`, opName(type, 'batchApi', 'archive'), (req, res) => {
    // Every input is checked before anything is archived: a 400 leaves the portal as it was.
    const ids = batchInputs(req).map((input) => {
      const id = isRecord(input) ? input.id : undefined;
      if ((typeof id !== 'string' || id === '') && typeof id !== 'number')
        throw validationError('Invalid input JSON: each input needs an `id`');
      return String(id);
    });
    for (const id of ids) ctx.store.archive(type, id);
    res.status(204).end();
    return undefined;
  });
}
