// The one way a test waits for something to happen: ask again until it has, or fail after a bound
// saying what never happened. Built on vitest's own vi.waitFor; never a fixed sleep.
import { vi } from 'vitest';

export interface PollOptions {
  /** How long to keep asking (ms). Default 5,000. */
  timeoutMs?: number;
  /** Pause between two asks (ms). Default 25. */
  intervalMs?: number;
}

/**
 * Resolves with `check`'s first truthy answer. A falsy answer or a thrown error asks again; past
 * `timeoutMs` it rejects with "<what> did not happen within N ms" (and the last error, if any);
 * `what` defaults to the check's own source, which names the condition well enough.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  what = `${check}`,
  { timeoutMs = 5_000, intervalMs = 25 }: PollOptions = {},
): Promise<NonNullable<T>> {
  try {
    return await vi.waitFor(
      async () => {
        const value = await check();
        if (!value) throw new NotYet();
        return value as NonNullable<T>;
      },
      { timeout: timeoutMs, interval: intervalMs },
    );
  } catch (err) {
    const cause = err instanceof NotYet ? '' : `: ${(err as Error).message}`;
    throw new Error(`${what} did not happen within ${timeoutMs} ms${cause}`);
  }
}

class NotYet extends Error {}
