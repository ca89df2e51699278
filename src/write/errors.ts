// How a write the CRM refused reaches the queue's failure decision (queues/failure.ts reads `permanent`).
import { IntegrationError } from '../shared/errors.ts';

/** A write the CRM refused for good (unknown field, deleted account): retrying cannot help. */
export class PermanentWriteError extends IntegrationError {
  constructor(message: string) {
    super(message, { permanent: true });
  }
}
