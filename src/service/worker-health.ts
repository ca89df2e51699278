// Whether this process's workers are consuming, for the worker's /healthz (METRICS_LISTEN): a worker
// whose BullMQ workers stopped, or whose work has not moved (no job started or ended, no account
// finished) for STALL_MS while jobs wait on its queues,
// answers 503 so an orchestrator restarts it. A process alive but consuming nothing is the failure a
// plain "is the process up" check cannot see.
import type { Queue, Worker } from 'bullmq';

/** Longer than any one job's fetch and write under throttling, shorter than an operator's patience. */
export const STALL_MS = 120_000;

export interface WorkerHealth {
  /** Work moved on: an account finished (a backfill chunk's accounts finish inside one long job). */
  touch(): void;
  check(now?: number): Promise<{ ok: boolean; detail: string }>;
}

export function workerHealth(
  workers: readonly Worker[],
  queues: readonly Pick<Queue, 'name' | 'getWaitingCount'>[],
  stallMs = STALL_MS,
): WorkerHealth {
  let lastActive = Date.now();
  const touch = () => {
    lastActive = Date.now();
  };
  for (const w of workers) {
    w.on('active', touch);
    w.on('completed', touch);
    w.on('failed', touch);
  }
  return {
    touch,
    async check(now = Date.now()) {
      const stopped = workers.filter((w) => !w.isRunning());
      if (stopped.length)
        return { ok: false, detail: `${stopped.map((w) => w.name).join(', ')} not running` };
      const waiting = (await Promise.all(queues.map((q) => q.getWaitingCount()))).reduce((a, b) => a + b, 0);
      const idleMs = now - lastActive;
      if (waiting > 0 && idleMs > stallMs)
        return {
          ok: false,
          detail: `${waiting} jobs wait and this worker moved none on in ${Math.round(idleMs / 1000)} s`,
        };
      return { ok: true, detail: `${workers.length} workers running; ${waiting} jobs waiting` };
    },
  };
}
