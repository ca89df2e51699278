// The one retry executor: every call that is tried again inside one operation (a Buyer Intelligence
// request, an undo's CRM call, a backfill's listing page, a write-history row, a racing insert) goes
// through `retrying`, and every decision is `nextRetry`, which reads the failure's facts
// (src/shared/errors.ts `failureFacts`: `permanent`, `retryAfterMs`, `status`), never its class, and
// waits by the one backoff (src/shared/backoff.ts). A loop differs from another only in its plan: how
// many tries, which backoff, whether a rate limit's wait spends a try, how long it may wait in all.
// BullMQ's job retries are the other level (queues/failure.ts), deciding from the same facts.
import { setTimeout as sleep } from 'node:timers/promises';
import { type BackoffPolicy, backoffDelay } from './backoff.ts';
import { failureFacts, type RetryFacts } from './errors.ts';

/** The backoff of a loop that waits for nothing: what it lost (a race, a field refused) is over at once. */
export const AT_ONCE: BackoffPolicy = { baseMs: 0, maxMs: 0 };

export interface RetryPlan {
  /** Tries in all, the first included; `Infinity`: only `maxWaitMs` (or success) ends them. */
  tries: number;
  /** The wait before a transient failure's next try when the failure names none. */
  backoff: BackoffPolicy;
  /** Whether a wait the failure asked for (Retry-After, a rate limit) spends a try. Default true. */
  waitsSpendTries?: boolean | undefined;
  /** The wait on a 429 that named none; unset, such a 429 waits by the backoff. */
  rateLimitWaitMs?: number | undefined;
  /** The longest wait a failure may ask for here; a longer one gives up (the queue parks the job). */
  maxRetryAfterMs?: number | undefined;
  /** All the waits of one call together; a wait that would pass it gives up. */
  maxWaitMs?: number | undefined;
  /** A failure that states no facts (a driver's plain Error): tried again (default) or not. */
  unknown?: 'transient' | 'permanent' | undefined;
  /**
   * Reads the failure's facts instead of `failureFacts`, for a loop that knows more than the error
   * says (a unique violation is another caller winning a race: try again at once).
   */
  classify?: ((err: unknown) => RetryFacts | undefined) | undefined;
}

export interface RetryRun extends RetryPlan {
  /** Waits `ms`; rejects when `signal` aborts. Default: Node's timer (tests pass one that counts). */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  random?: (() => number) | undefined;
  signal?: AbortSignal | undefined;
  /** Told each wait before it starts, with the failure that caused it (progress lines, metrics). */
  onRetry?: ((failure: unknown, delayMs: number, tries: number) => void) | undefined;
}

/**
 * The wait a failure asks for: its Retry-After, else `rateLimitWaitMs` for a 429 that named none.
 * It comes before `permanent`: "try again after X" outranks what the status implies.
 */
export const askedWaitMs = (facts: RetryFacts, rateLimitWaitMs?: number): number | undefined =>
  facts.retryAfterMs ?? (facts.status === 429 ? rateLimitWaitMs : undefined);

export type RetryStep = { retry: false } | { retry: true; delayMs: number; spendsTry: boolean };

/**
 * After a failure: try again (after how long, and whether that spends a try) or give up. `tries` is
 * the tries spent so far, the failed one included; `waitedMs` what this call has waited already.
 */
export function nextRetry(
  err: unknown,
  done: { tries: number; waitedMs: number },
  plan: RetryPlan,
  random: () => number = Math.random,
): RetryStep {
  const facts = plan.classify ? plan.classify(err) : failureFacts(err);
  if (!facts && plan.unknown === 'permanent') return { retry: false };
  const asked = facts && askedWaitMs(facts, plan.rateLimitWaitMs);
  let delayMs: number;
  let spendsTry = true;
  if (asked !== undefined) {
    if (asked > (plan.maxRetryAfterMs ?? Number.POSITIVE_INFINITY)) return { retry: false };
    delayMs = asked;
    spendsTry = plan.waitsSpendTries ?? true;
  } else if (facts?.permanent) {
    return { retry: false };
  } else {
    delayMs = backoffDelay(done.tries, plan.backoff, random);
  }
  if (spendsTry && done.tries >= plan.tries) return { retry: false };
  if (done.waitedMs + delayMs > (plan.maxWaitMs ?? Number.POSITIVE_INFINITY)) return { retry: false };
  return { retry: true, delayMs, spendsTry };
}

const sleepFor = (ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal });

/** Calls `call` (told which try it is, 1-based) until it answers or `nextRetry` gives up: then throws its failure. */
export async function retrying<T>(call: (attempt: number) => Promise<T>, run: RetryRun): Promise<T> {
  const pause = run.sleep ?? sleepFor;
  let tries = 0;
  let attempt = 0;
  let waitedMs = 0;
  for (;;) {
    attempt++;
    try {
      return await call(attempt);
    } catch (err) {
      // The caller gave up: not a failure to retry, whatever it says.
      if (run.signal?.aborted) throw run.signal.reason;
      const step = nextRetry(err, { tries: tries + 1, waitedMs }, run, run.random);
      if (!step.retry) throw err;
      if (step.spendsTry) tries++;
      run.onRetry?.(err, step.delayMs, attempt);
      await pause(step.delayMs, run.signal);
      waitedMs += step.delayMs;
    }
  }
}
