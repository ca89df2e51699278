// The job schedulers a configuration asks for. Idempotent: every worker replica may declare them, and
// a schedule switched off in the configuration has its scheduler removed.

import { registerDigestSchedulers } from '../../queues/digest-queue.ts';
import { upsertFollowUpSweep } from '../../queues/follow-up-sweep.ts';
import { PENDING_SWEEP_SCHEDULE, upsertSchedule } from '../../queues/maintenance.ts';
import { DIGEST_KINDS } from '../digest/deps.ts';
import { digestSchedules } from '../digest/run.ts';
import type { ServiceCore } from './core.ts';

export async function upsertSchedules(core: ServiceCore): Promise<void> {
  const { settings, queues } = core;
  await registerDigestSchedulers(queues.digest, DIGEST_KINDS, digestSchedules(settings.digest ?? {}));
  // Always on: no value of ours may stay off the record for want of a job of its account.
  await upsertSchedule(queues.maintenance, PENDING_SWEEP_SCHEDULE);
  const reenrich = settings.schedules?.reenrich;
  if (reenrich)
    await upsertSchedule(queues.maintenance, { id: 'reenrich', name: 'reenrich-sweep', ...reenrich });
  else await queues.maintenance.removeJobScheduler('reenrich');
  await upsertFollowUpSweep(queues.maintenance, settings.followUps?.sweepMinutes ?? 0);
}
