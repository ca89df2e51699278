// Notes v3 (/crm/v3/objects/notes). `hs_timestamp` is required to create a note and `hs_note_body` holds
// at most 65,536 characters (notes guide); inline associations use note→company type 190.
import { validationError } from '../errors.ts';
import type { RouteModule } from '../operation.ts';
import { registerBatchArchive } from './batch-archive.ts';
import { registerObjectRoutes } from './objects.ts';

export const NOTE_BODY_LIMIT = 65_536;

function checkBody(properties: Record<string, unknown>) {
  const body = properties.hs_note_body;
  if (typeof body === 'string' && body.length > NOTE_BODY_LIMIT) {
    return validationError(
      `hs_note_body is ${body.length} characters long; the maximum is ${NOTE_BODY_LIMIT} characters`,
      { context: { propertyName: ['hs_note_body'] } },
    );
  }
  return undefined;
}

export const registerNoteRoutes: RouteModule = (define, ctx) => {
  registerObjectRoutes(define, ctx, 'notes', {
    checkCreate: (properties) => {
      const timestamp = properties.hs_timestamp;
      if (timestamp === undefined || timestamp === null || timestamp === '') {
        return validationError('hs_timestamp is required to create a note', {
          context: { propertyName: ['hs_timestamp'] },
        });
      }
      return checkBody(properties);
    },
    checkUpdate: checkBody,
  });
  registerBatchArchive(define, ctx, 'notes');
};
