// The follow-up sweep's schedule: a job on the maintenance queue every FOLLOW_UP_SWEEP_MINUTES, under
// one fixed scheduler id (every worker may upsert it, at start and whenever Redis lost it:
// schedule-keeper.ts; switched off, it is removed). What a sweep does is src/follow-ups/sweep.ts; the
// maintenance worker runs it by the job's name.
import type { Queue } from 'bullmq';
import type { MaintenanceData } from './maintenance.ts';
import type { DeclaredScheduler } from './schedule-keeper.ts';

export const FOLLOW_UP_SWEEP_JOB = 'follow-up-sweep';
export const FOLLOW_UP_SWEEP_SCHEDULER = 'follow-up-sweep';

export async function upsertFollowUpSweep(
  queue: Queue<MaintenanceData>,
  everyMinutes: number,
): Promise<DeclaredScheduler[]> {
  if (everyMinutes <= 0) {
    await queue.removeJobScheduler(FOLLOW_UP_SWEEP_SCHEDULER);
    return [];
  }
  await queue.upsertJobScheduler(
    FOLLOW_UP_SWEEP_SCHEDULER,
    { every: everyMinutes * 60_000 },
    {
      name: FOLLOW_UP_SWEEP_JOB,
      data: {},
      // A failed sweep is not retried: the next one, minutes later, does the same work.
      opts: { attempts: 1, removeOnComplete: 100, removeOnFail: 1000 },
    },
  );
  return [{ queue, id: FOLLOW_UP_SWEEP_SCHEDULER }];
}
