// The one backoff of the project: capped exponential growth with "equal jitter" — half of the step is
// fixed, half random — so retries of many clients spread out while none retries almost at once.
// Used by in-call retries (the executor, src/shared/retry.ts) and by BullMQ job retries alike.

export interface BackoffPolicy {
  /** The first retry's ceiling. */
  baseMs: number;
  /** No wait exceeds this. */
  maxMs: number;
}

/** The wait before retry number `attempt` (1 = the first retry). */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
