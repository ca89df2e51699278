// The job schedulers a configuration asks for. Idempotent: every worker replica may declare them, and
// a schedule switched off in the configuration has its scheduler removed. A worker keeps them declared
// while it runs (queues/schedule-keeper.ts): Redis may lose them, and nothing else would bring them back.

import { registerDigestSchedulers } from '../../queues/digest-queue.ts';
import { upsertFollowUpSweep } from '../../queues/follow-up-sweep.ts';
import { PENDING_SWEEP_SCHEDULE, upsertSchedule } from '../../queues/maintenance.ts';
import {
  type DeclaredScheduler,
  keepSchedules as keep,
  type ScheduleKeeper,
} from '../../queues/schedule-keeper.ts';
import { DIGEST_KINDS } from '../digest/deps.ts';
import { digestSchedules } from '../digest/run.ts';
import type { ServiceCore } from './core.ts';

export async function upsertSchedules(core: ServiceCore): Promise<DeclaredScheduler[]> {
  const { settings, queues } = core;
  const declared = await registerDigestSchedulers(
    queues.digest,
    DIGEST_KINDS,
    digestSchedules(settings.digest ?? {}),
  );
  // Always on: no value of ours may stay off the record for want of a job of its account.
  declared.push(await upsertSchedule(queues.maintenance, PENDING_SWEEP_SCHEDULE));
  const reenrich = settings.schedules?.reenrich;
  if (reenrich)
    declared.push(
      await upsertSchedule(queues.maintenance, { id: 'reenrich', name: 'reenrich-sweep', ...reenrich }),
    );
  else await queues.maintenance.removeJobScheduler('reenrich');
  declared.push(...(await upsertFollowUpSweep(queues.maintenance, settings.followUps?.sweepMinutes ?? 0)));
  return declared;
}

/** Declares the schedulers now and again whenever Redis lost them, until the keeper is closed. */
export function keepSchedules(core: ServiceCore): Promise<ScheduleKeeper> {
  return keep({ declare: () => upsertSchedules(core), connection: core.redis.producer, log: core.log });
}
