// The two numbers a person tunes the automatic match by, as the admin console edits them and the
// mapping's versions store them (the resolver's `acceptThreshold` and `ambiguityMargin`): the same
// ranges the resolver accepts and MATCH_ACCEPT_THRESHOLD / MATCH_AMBIGUITY_MARGIN are checked against.
import { z } from 'zod';

const number = (what: string) =>
  z.number({
    error: (issue) =>
      issue.input === undefined
        ? 'missing (required)'
        : `expected ${what}, got ${JSON.stringify(issue.input)}`,
  });

export const matchThresholdsSchema = z.strictObject({
  /** A candidate is matched automatically only from this score up. */
  acceptThreshold: number('a score from 0 to 1')
    .gt(0, { error: 'must be above 0 (a score of 0 would match anything)' })
    .max(1, { error: 'must be at most 1 (the highest score)' }),
  /** A runner-up within this of the best sends the account to review. */
  ambiguityMargin: number('a margin from 0 to 1')
    .min(0, { error: 'must be 0 or more' })
    .lt(1, { error: 'must be below 1' }),
});
export type MatchThresholds = z.infer<typeof matchThresholdsSchema>;
