// What a worker process takes from its queues, counted in accounts. BullMQ's concurrency counts jobs and
// fetches jobs until it holds that many, before it runs any: with chunks of 100 accounts one process
// would take the whole backlog and leave the others idle. So every job handed to a worker (BullMQ's
// `active` event, emitted before its fetch loop looks at the concurrency again) is weighed — a single
// job 1, a chunk its accounts not yet finished — and each worker's concurrency is set so that it
// fetches again only while it holds fewer than WORKER_CONCURRENCY single jobs and fewer than twice
// WORKER_CONCURRENCY accounts: the accounts in flight (AccountSlots, shared by the process's workers)
// stay at WORKER_CONCURRENCY, and the next chunk waits here to take slots the moment the running one
// frees them.
// BullMQ looks again when one of the worker's jobs ends, not when an account of a chunk does: a worker
// full of chunks fetches about every half chunk's time (tens of seconds at the provider's pace). So
// backfill has a queue of its own (enrich-queue.ts, BACKFILL_QUEUE) and each queue's worker is weighed
// on its own jobs only: the people's worker always has a fetch waiting for the next webhook or click,
// which then takes the next free slot ahead of every backfill account.
import type { Job, Worker } from 'bullmq';
import { AccountSlots } from './account-slots.ts';
import { type EnrichQueueData, isChunk } from './enrich-queue.ts';

type Fetching = Pick<Worker, 'concurrency'>;

export class WorkerLoad {
  readonly slots: AccountSlots;
  /** Job id → its worker and weight (accounts not yet finished); a single job weighs 1. */
  readonly #held = new Map<string, { worker: Fetching | undefined; chunk: boolean; weight: number }>();
  readonly #workers = new Set<Fetching>();

  constructor(capacity: number) {
    this.slots = new AccountSlots(capacity);
  }

  /** Follows the worker's jobs and sets its concurrency from now on; one load may weigh several workers. */
  attach<R>(worker: Worker<EnrichQueueData, R>): void {
    this.#workers.add(worker);
    worker.on('active', (job) => this.held(job, worker));
    const done = (job: Job | undefined) => {
      if (job?.id) this.done(job.id);
    };
    worker.on('completed', done);
    worker.on('failed', done);
    this.#update();
  }

  /** A job handed to `worker` (idempotent). */
  held(job: Pick<Job<EnrichQueueData>, 'id' | 'data'>, worker?: Fetching): void {
    if (!job.id || this.#held.has(job.id)) return;
    const { data } = job;
    const chunk = isChunk(data);
    this.#held.set(job.id, { worker, chunk, weight: chunk ? data.accountIds.length : 1 });
    this.#update();
  }

  /** `n` accounts of a chunk finished (enriched, handed off or skipped). */
  accountsDone(jobId: string, n = 1): void {
    const entry = this.#held.get(jobId);
    if (!entry) return;
    entry.weight = Math.max(0, entry.weight - n);
    this.#update();
  }

  /** The job left its worker (its processor returned or threw); idempotent. */
  done(jobId: string): void {
    if (this.#held.delete(jobId)) this.#update();
  }

  /** How many more jobs `worker` may fetch now (without one: counting every job held). */
  room(worker?: Fetching): number {
    let singles = 0;
    let accounts = 0;
    for (const e of this.#held.values()) {
      if (worker && e.worker !== worker) continue;
      if (!e.chunk) singles++;
      accounts += e.weight;
    }
    const capacity = this.slots.capacity;
    return Math.max(0, Math.min(capacity - singles, 2 * capacity - accounts));
  }

  #update(): void {
    for (const worker of this.#workers) {
      let jobs = 0;
      for (const e of this.#held.values()) if (e.worker === worker) jobs++;
      worker.concurrency = Math.max(1, jobs + this.room(worker));
    }
  }
}
