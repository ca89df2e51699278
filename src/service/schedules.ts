// The job schedulers a configuration asks for. Idempotent: every worker replica may declare them, and
// a schedule switched off in the configuration has its scheduler removed.

import { registerDigestSchedulers } from '../../queues/digest-queue.ts';
import { upsertFollowUpSweep } from '../../queues/follow-up-sweep.ts';
import { upsertSchedule } from '../../queues/maintenance.ts';
import type { ServiceCore } from './core.ts';

export async function upsertSchedules(core: ServiceCore): Promise<void> {
  const { settings, queues } = core;
  await registerDigestSchedulers(queues.digest, settings.digest ?? {});
  const reenrich = settings.schedules?.reenrich;
  if (reenrich)
    await upsertSchedule(queues.maintenance, { id: 'reenrich', name: 'reenrich-sweep', ...reenrich });
  else await queues.maintenance.removeJobScheduler('reenrich');
  await upsertFollowUpSweep(queues.maintenance, settings.followUps?.sweepMinutes ?? 0);
}
