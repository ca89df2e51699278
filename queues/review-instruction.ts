// What a review decision asks of the enrichment job that applies it. It travels in the job's data (a
// person's decision goes through the same job flow as a webhook) and is validated where it enters: part
// of the enrich queue's job contract, so it lives beside it.
import { z } from 'zod';

const id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

export const reviewInstructionSchema = z.discriminatedUnion('action', [
  /** Enrich with this buyer (a confirmed or approved candidate): no search. */
  z.strictObject({
    action: z.literal('confirm'),
    actor: z.string().min(1).max(200),
    buyerId: id,
    /** The candidate's score when it was confirmed, for the reason a person reads. */
    score: z.number().min(0).max(1).nullable().optional(),
  }),
  /** Search again with an edited name and/or state instead of the CRM's (the CRM's own stay as they are). */
  z.strictObject({
    action: z.literal('research'),
    actor: z.string().min(1).max(200),
    name: z.string().trim().min(1).max(300).optional(),
    state: z.string().trim().min(1).max(64).optional(),
  }),
]);

export type ReviewInstruction = z.infer<typeof reviewInstructionSchema>;
