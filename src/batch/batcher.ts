// Collects items from many concurrent jobs and sends them in one call: a burst of 100 accounts costs
// one CRM write instead of 100. The window adapts to the CRM (group commit): an item that finds no
// batch in flight leaves at once, so a lone account never waits for a timer; items that arrive while
// a batch is in flight (its call, including the wait for a call-budget slot) wait for it and leave
// together as the next batch. The slower the CRM answers, the fuller the batches, with no tuning.
// A full batch has nothing to gain by waiting and leaves while fewer than `maxInFlight` are in
// flight. `maxWaitMs` is an optional linger on top: a batch also waits until its oldest item has
// waited that long (0: never). If the call throws, every item of that batch gets the error.

export interface BatcherOptions<I, O> {
  maxBatch: number;
  /** Extra linger before a partial batch leaves (ms from its oldest item). Default 0. */
  maxWaitMs?: number;
  /** Batches in flight at once, at most. Default 2. */
  maxInFlight?: number;
  /** Sends one batch; must return one result per item, in order. */
  send: (items: I[]) => Promise<O[]>;
}

interface Pending<I, O> {
  item: I;
  at: number;
  resolve: (o: O) => void;
  reject: (e: unknown) => void;
}

export const DEFAULT_MAX_IN_FLIGHT = 2;

export class Batcher<I, O> {
  readonly #send: (items: I[]) => Promise<O[]>;
  readonly #maxBatch: number;
  readonly #maxWaitMs: number;
  readonly #maxInFlight: number;
  #pending: Pending<I, O>[] = [];
  #timer: NodeJS.Timeout | undefined;
  #scheduled = false;
  #draining = 0;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(options: BatcherOptions<I, O>) {
    if (options.maxBatch < 1) throw new RangeError('maxBatch must be at least 1');
    this.#send = options.send;
    this.#maxBatch = options.maxBatch;
    this.#maxWaitMs = options.maxWaitMs ?? 0;
    this.#maxInFlight = Math.max(1, options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#pending.push({ item, at: Date.now(), resolve, reject });
      // Items submitted in the same tick (jobs resumed by one answer) leave together.
      if (!this.#scheduled) {
        this.#scheduled = true;
        queueMicrotask(() => {
          this.#scheduled = false;
          this.#pump();
        });
      }
    });
  }

  /** Sends what is pending now (no linger) and waits until nothing is pending or in flight. */
  async drain(): Promise<void> {
    this.#draining++;
    try {
      while (this.#pending.length || this.#inFlight.size) {
        this.#pump();
        await Promise.race([...this.#inFlight]);
      }
    } finally {
      this.#draining--;
    }
  }

  #pump(): void {
    while (this.#pending.length && this.#inFlight.size < this.#maxInFlight) {
      const full = this.#pending.length >= this.#maxBatch;
      if (!full && this.#inFlight.size > 0) return;
      const oldest = this.#pending[0]?.at ?? 0;
      const lingerLeft = this.#draining ? 0 : oldest + this.#maxWaitMs - Date.now();
      if (!full && lingerLeft > 0) {
        this.#timer ??= setTimeout(() => {
          this.#timer = undefined;
          this.#pump();
        }, lingerLeft);
        return;
      }
      clearTimeout(this.#timer);
      this.#timer = undefined;
      const batch = this.#pending.splice(0, this.#maxBatch);
      const run = this.#run(batch);
      this.#inFlight.add(run);
      void run.finally(() => {
        this.#inFlight.delete(run);
        this.#pump();
      });
    }
  }

  async #run(batch: Pending<I, O>[]): Promise<void> {
    try {
      const results = await this.#send(batch.map((p) => p.item));
      if (results.length !== batch.length) {
        throw new Error(`batch send returned ${results.length} results for ${batch.length} items`);
      }
      for (const [i, p] of batch.entries()) p.resolve(results[i] as O);
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}
