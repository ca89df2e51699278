// The schedule keeper on real Redis: three workers keep the same schedules; when Redis loses them (the
// keys deleted under the test's prefix, as a FLUSHALL would on a Redis of its own), each one's look
// finds them gone, and however many declare them again at once there is one scheduler per id and one
// upcoming job per scheduler. Nothing is declared while they are there.
// @redis-cluster: also runs on a 3-master Redis Cluster (npm run test:cluster).
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertFollowUpSweep } from '../../queues/follow-up-sweep.ts';
import { createMaintenanceQueue, PENDING_SWEEP_SCHEDULE, upsertSchedule } from '../../queues/maintenance.ts';
import { keepSchedules, type ScheduleKeeper } from '../../queues/schedule-keeper.ts';
import { deleteKeysOf, testPrefix, testRedis } from '../helpers/redis.ts';

const prefix = testPrefix('schedule-keeper');
const connections: Redis[] = [];
const keepers: ScheduleKeeper[] = [];
const queues: ReturnType<typeof createMaintenanceQueue>[] = [];
let declarations = 0;

beforeAll(async () => {
  for (let i = 0; i < 3; i++) {
    const connection = testRedis();
    connections.push(connection);
    const queue = createMaintenanceQueue(connection, { prefix });
    queues.push(queue);
    keepers.push(
      await keepSchedules({
        connection,
        // Long enough that only the test's own looks run.
        intervalMs: 600_000,
        declare: async () => {
          declarations++;
          return [
            await upsertSchedule(queue, PENDING_SWEEP_SCHEDULE),
            ...(await upsertFollowUpSweep(queue, 60)),
          ];
        },
      }),
    );
  }
});

afterAll(async () => {
  await Promise.all(keepers.map((k) => k.close()));
  await Promise.all(queues.map((q) => q.close()));
  const [first] = connections;
  if (first) await deleteKeysOf(first, prefix);
  for (const c of connections) c.disconnect();
});

describe('keepSchedules', () => {
  it('declares lost schedules again, once each, whichever workers notice together', async () => {
    const [queue] = queues;
    if (!queue) throw new Error('no queue');
    const state = async () => ({
      schedulers: (await queue.getJobSchedulers()).map((s) => s.key).sort(),
      upcoming: (await queue.getJobs(['delayed', 'wait'])).map((j) => j.name).sort(),
    });
    const whole = {
      schedulers: ['follow-up-sweep', 'settle-pending'],
      upcoming: ['follow-up-sweep', 'settle-pending'],
    };
    expect(await state()).toEqual(whole);

    // All there: a look declares nothing.
    const before = declarations;
    expect(await Promise.all(keepers.map((k) => k.check()))).toEqual([false, false, false]);
    expect(declarations).toBe(before);

    const [first] = connections;
    if (!first) throw new Error('no connection');
    await deleteKeysOf(first, prefix);
    expect((await state()).schedulers).toEqual([]);
    // Every worker looks at once: those that find them gone (all, unless one's declaration came first)
    // declare them; one of each remains.
    expect(await Promise.all(keepers.map((k) => k.check()))).toContain(true);
    expect(await state()).toEqual(whole);
  });
});
