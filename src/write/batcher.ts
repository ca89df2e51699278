// Collects items from many concurrent jobs and sends them in one call: a burst of 100 accounts costs
// one CRM write instead of 100. A batch goes when it is full or when the oldest item has waited
// `maxWaitMs`. If the call throws, every item of that batch gets the error.

export interface BatcherOptions<I, O> {
  maxBatch: number;
  maxWaitMs: number;
  /** Sends one batch; must return one result per item, in order. */
  send: (items: I[]) => Promise<O[]>;
}

interface Pending<I, O> {
  item: I;
  resolve: (o: O) => void;
  reject: (e: unknown) => void;
}

export class Batcher<I, O> {
  readonly #opts: BatcherOptions<I, O>;
  #pending: Pending<I, O>[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: BatcherOptions<I, O>) {
    if (options.maxBatch < 1) throw new RangeError('maxBatch must be at least 1');
    this.#opts = options;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      if (this.#pending.length >= this.#opts.maxBatch) this.#flush();
      else this.#timer ??= setTimeout(() => this.#flush(), this.#opts.maxWaitMs);
    });
  }

  /** Sends what is pending now and waits for every batch in flight. */
  async drain(): Promise<void> {
    this.#flush();
    await Promise.allSettled([...this.#inFlight]);
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#pending.length) {
      const batch = this.#pending.splice(0, this.#opts.maxBatch);
      const run = this.#send(batch);
      this.#inFlight.add(run);
      void run.finally(() => this.#inFlight.delete(run));
    }
  }

  async #send(batch: Pending<I, O>[]): Promise<void> {
    try {
      const results = await this.#opts.send(batch.map((p) => p.item));
      if (results.length !== batch.length) {
        throw new Error(`batch send returned ${results.length} results for ${batch.length} items`);
      }
      for (const [i, p] of batch.entries()) p.resolve(results[i] as O);
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}
