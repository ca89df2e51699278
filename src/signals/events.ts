// The provider's webhook payload (its Standard Webhooks catalogue, Ed25519-signed) and the row events we
// act on; the job one row event becomes is queues/signal-queue.ts's, and the
// worker reads the row from the API (src/signals/row-lookup.ts).
import { z } from 'zod';
import { UUID } from '../shared/ids.ts';

export const ROW_EVENT_TYPES = ['bridge.row.created', 'bridge.row.updated'] as const;
export type RowEventType = (typeof ROW_EVENT_TYPES)[number];

/** Any event: the catalogue may grow, and an event we do not act on is still acknowledged. */
export const webhookEnvelopeSchema = z.looseObject({
  type: z.string().min(1),
  timestamp: z.string().nullish(),
  data: z.unknown(),
});

export const rowEventDataSchema = z.looseObject({
  // uuids in the provider's reference: checked here, before either goes into a path or a job.
  rowId: z.string().regex(UUID, 'must be a uuid'),
  bridgeId: z.string().regex(UUID, 'must be a uuid'),
  name: z.string().nullish(),
  updatedAt: z.string().nullish(),
  status: z.string().nullish(),
});
export type RowEventData = z.infer<typeof rowEventDataSchema>;

/**
 * Standard Webhooks senders retry for about a day and a half (Svix' schedule: up to 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h, 10 h); the provider's catalogue states none. Three days covers it with room to spare.
 */
export const WEBHOOK_DEDUPE_TTL_SECONDS = 3 * 24 * 3600;
