// Job schedulers live in Redis alone: a FLUSHALL, a failover to an empty replica or a restart without
// persistence takes them away, and declaring them only at a worker's start left the settle-pending and
// follow-up sweeps (and the digests) off until every worker restarted. So each worker keeps them: it
// looks every few seconds (one ZSCORE per scheduler, sent together: a few commands against the ~9 per
// 10 s an idle worker's own polling costs) and as soon as its connection is ready again after a
// reconnect. Whichever worker notices first declares them all again; upserts are idempotent by id, so
// several noticing at once still leave one of each.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { LogPort } from '../src/shared/log.ts';

/** How often a worker looks for its schedulers: well within the 30 s the work may be off. */
export const SCHEDULE_CHECK_MS = 5_000;

/** A scheduler declared: the queue it lives on and its fixed id. */
export interface DeclaredScheduler {
  queue: Pick<Queue, 'toKey'>;
  id: string;
}

export interface ScheduleKeeper {
  /** Looks once; true when something was missing and was declared again. */
  check(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Declares the schedules now (a failure rejects, as a start would), then keeps them declared while
 * the process runs. `declare` upserts every configured scheduler (removing those switched off) and
 * answers those it declared.
 */
export async function keepSchedules(options: {
  declare: () => Promise<readonly DeclaredScheduler[]>;
  /** The connection the look runs on; its 'ready' after a reconnect triggers a look at once. */
  connection: Redis;
  intervalMs?: number;
  log?: Pick<LogPort, 'warn'> | undefined;
}): Promise<ScheduleKeeper> {
  const { connection, log } = options;
  let declared = await options.declare();
  let running: Promise<boolean> | undefined;
  let failing = false;
  let closed = false;

  const look = async (): Promise<boolean> => {
    const scores = await Promise.all(declared.map((s) => connection.zscore(s.queue.toKey('repeat'), s.id)));
    const missing = declared.filter((_, i) => scores[i] === null).map((s) => s.id);
    if (!missing.length || closed) return false;
    log?.warn('job schedulers were missing from Redis (it lost its data); declared again', { missing });
    declared = await options.declare();
    return true;
  };
  const check = (): Promise<boolean> => {
    // One look at a time: a slow Redis never piles them up.
    running ??= look()
      .then(
        (found) => {
          failing = false;
          return found;
        },
        (err: unknown) => {
          // Redis down: its connection errors are logged already; say once that schedules wait for it.
          if (!failing)
            log?.warn('could not check the job schedulers; trying again', {
              reason: err instanceof Error ? err.message : String(err),
            });
          failing = true;
          return false;
        },
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const timer = setInterval(() => void check(), options.intervalMs ?? SCHEDULE_CHECK_MS);
  timer.unref();
  const onReady = () => void check();
  connection.on('ready', onReady);
  return {
    check,
    async close() {
      closed = true;
      clearInterval(timer);
      connection.off('ready', onReady);
      await running;
    },
  };
}
