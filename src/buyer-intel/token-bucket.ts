// Client-side limiter so that we do not cause the provider's 429s in the first place. A token bucket
// allows short bursts up to `burst` and a sustained `ratePerSecond`. Waiters are served in order.

export interface TokenBucketOptions {
  ratePerSecond: number;
  burst: number;
}

export class TokenBucket {
  readonly #rate: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;
  #queue: Promise<void> = Promise.resolve();
  readonly #now: () => number;

  constructor(options: TokenBucketOptions, now: () => number = () => performance.now()) {
    if (!(options.ratePerSecond > 0) || !(options.burst >= 1)) {
      throw new RangeError('token bucket needs ratePerSecond > 0 and burst >= 1');
    }
    this.#rate = options.ratePerSecond;
    this.#burst = options.burst;
    this.#tokens = options.burst;
    this.#now = now;
    this.#last = now();
  }

  #refill(): void {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#rate);
    this.#last = now;
  }

  /** Resolves when a token is available; takes it. Rejects if the signal aborts while waiting. */
  take(signal?: AbortSignal): Promise<undefined> {
    const turn = this.#queue.then(() => this.#takeNow(signal));
    // The next waiter starts after this one, whether it got a token or was aborted.
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #takeNow(signal?: AbortSignal): Promise<undefined> {
    for (;;) {
      signal?.throwIfAborted();
      this.#refill();
      if (this.#tokens >= 1) {
        this.#tokens -= 1;
        return undefined;
      }
      const waitMs = Math.ceil(((1 - this.#tokens) / this.#rate) * 1000);
      await sleep(waitMs, signal);
    }
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
