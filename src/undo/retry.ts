// One CRM call of an undo, retried the way every write is: a rate limit (the CRM's 429, or our own call
// budget staying full) is waited out without spending an attempt, a failure that cannot succeed is not
// retried, anything else is retried with the project's one backoff. The decision reads the error's
// facts only (queues/failure.ts), never a class name.
import { setTimeout as delay } from 'node:timers/promises';
import { classifyFailure } from '../../queues/failure.ts';
import { type BackoffPolicy, backoffDelay } from '../shared/backoff.ts';

export interface RetryOptions {
  /** Tries in all, rate-limit waits aside. Default 5. */
  attempts?: number;
  /** The longest an undo waits out rate limits for one call before giving up. Default 10 minutes. */
  maxWaitMs?: number;
  backoff?: BackoffPolicy;
  sleep?: (ms: number) => Promise<void>;
}

const IN_CALL_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 30_000 };

export async function withRetries<T>(call: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 5;
  const maxWaitMs = options.maxWaitMs ?? 600_000;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  let failures = 0;
  let waited = 0;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      // A batch too large is our mistake, never the CRM's: retrying cannot help.
      if (err instanceof RangeError) throw err;
      const action = classifyFailure(err);
      if (action.action === 'fail') throw err;
      if (action.action === 'retry') {
        failures++;
        if (failures >= attempts) throw err;
        await sleep(backoffDelay(failures, options.backoff ?? IN_CALL_BACKOFF));
        continue;
      }
      if (waited + action.delayMs > maxWaitMs) throw err;
      waited += action.delayMs;
      await sleep(action.delayMs);
    }
  }
}
