// The worker settings a deployment gets when it sets nothing, read from the service's config schema so
// a bench measures them and cannot drift from them (the backfill bench once kept a 250-ms linger after
// the service's default became 0).
import { coreSchema } from '../src/config/env.ts';

export const SERVICE_WORKER_DEFAULTS = {
  concurrency: coreSchema.shape.WORKER_CONCURRENCY.parse(undefined),
  writeBatchWaitMs: coreSchema.shape.WRITE_BATCH_WAIT_MS.parse(undefined),
  backfillBatchWaitMs: coreSchema.shape.BACKFILL_BATCH_WAIT_MS.parse(undefined),
} as const;

/** The provider pace a deployment gets when it sets nothing (emulators/settings.ts reads the schema). */
export { SERVICE_PROVIDER_RATE as SERVICE_PROVIDER_DEFAULTS } from '../emulators/settings.ts';
