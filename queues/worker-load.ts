// What a worker process takes from the queue, counted in accounts. BullMQ's concurrency counts jobs and
// fetches jobs until it holds that many, before it runs any: with chunks of 100 accounts one process
// would take the whole backlog and leave the others idle. So every job handed to the worker (BullMQ's
// `active` event, emitted before its fetch loop looks at the concurrency again) is weighed — a single
// job 1, a chunk its accounts not yet finished — and the concurrency is set so that the worker fetches
// again only while it holds fewer than WORKER_CONCURRENCY single jobs and fewer than twice
// WORKER_CONCURRENCY accounts: the accounts in flight (AccountSlots) stay at WORKER_CONCURRENCY, and
// the next chunk waits here to take slots the moment the running one frees them.
// BullMQ looks again when a job ends, not when an account of a chunk does; so while chunks fill the
// process a webhook's job is fetched at the next job's end (a chunk's, about every half chunk's time).
import type { Job, Worker } from 'bullmq';
import { AccountSlots } from './account-slots.ts';
import { type EnrichQueueData, isChunk } from './enrich-queue.ts';

export class WorkerLoad {
  readonly slots: AccountSlots;
  /** Job id → its weight (accounts not yet finished); a single job weighs 1. */
  readonly #held = new Map<string, { chunk: boolean; weight: number }>();
  #worker: Pick<Worker, 'concurrency'> | undefined;

  constructor(capacity: number) {
    this.slots = new AccountSlots(capacity);
  }

  /** Follows the worker's jobs and sets its concurrency from now on. */
  attach<R>(worker: Worker<EnrichQueueData, R>): void {
    this.#worker = worker;
    worker.on('active', (job) => this.held(job));
    const done = (job: Job | undefined) => {
      if (job?.id) this.done(job.id);
    };
    worker.on('completed', done);
    worker.on('failed', done);
    this.#update();
  }

  /** A job handed to the worker (idempotent). */
  held(job: Pick<Job<EnrichQueueData>, 'id' | 'data'>): void {
    if (!job.id || this.#held.has(job.id)) return;
    const { data } = job;
    const chunk = isChunk(data);
    this.#held.set(job.id, { chunk, weight: chunk ? data.accountIds.length : 1 });
    this.#update();
  }

  /** `n` accounts of a chunk finished (enriched, handed off or skipped). */
  accountsDone(jobId: string, n = 1): void {
    const entry = this.#held.get(jobId);
    if (!entry) return;
    entry.weight = Math.max(0, entry.weight - n);
    this.#update();
  }

  /** The job left the worker (its processor returned or threw); idempotent. */
  done(jobId: string): void {
    if (this.#held.delete(jobId)) this.#update();
  }

  /** How many more jobs the worker may fetch now. */
  room(): number {
    let singles = 0;
    let accounts = 0;
    for (const e of this.#held.values()) {
      if (!e.chunk) singles++;
      accounts += e.weight;
    }
    const capacity = this.slots.capacity;
    return Math.max(0, Math.min(capacity - singles, 2 * capacity - accounts));
  }

  #update(): void {
    if (this.#worker) this.#worker.concurrency = Math.max(1, this.#held.size + this.room());
  }
}
