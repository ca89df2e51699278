// The refresh's double-click window on a real Redis and BullMQ queue, with a store slower than the
// window: the window counts from the answer, so the second click is still the first click's job.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { createEnrichQueue } from '../../queues/enrich-queue.ts';
import { type ActionOptions, refreshActions } from '../../src/api/actions.ts';
import { deleteKeysOf, testPrefix, testRedis } from '../helpers/redis.ts';

const WINDOW_MS = 300;
const prefix = testPrefix('refresh-window');
const redis = testRedis();
const queue = createEnrichQueue(redis, { prefix });

afterAll(async () => {
  await queue.close();
  await deleteKeysOf(redis, prefix);
  await redis.quit();
});

/** A store whose run record takes `ms`: a database busy migrating or under load. */
const slowStore = (ms: number) =>
  ({
    open: async () => ({
      runs: {
        create: async () => {
          await sleep(ms);
          return { id: '1' };
        },
      },
    }),
  }) as unknown as ActionOptions['store'];

describe('a refresh whose run takes longer to record than the double-click window', () => {
  it('still answers a click right after it with the same job', async () => {
    const actions = refreshActions({
      queue,
      redis,
      prefix,
      history: undefined as unknown as ActionOptions['history'],
      store: slowStore(WINDOW_MS * 2),
      connectorFor: () => {
        throw new Error('not used by a refresh without a check');
      },
      attempts: 1,
      refreshWindowMs: WINDOW_MS,
    });
    const actor = { kind: 'api-key', name: 'test' } as const;
    const first = await actions.refresh('hubspot', '1', '101', 'test', actor);
    const second = await actions.refresh('hubspot', '1', '101', 'test', actor);
    expect(second).toEqual({ jobId: first.jobId, deduplicated: true });
    // One job queued (a refresh waits at its priority).
    expect(await queue.getJobCountByTypes('waiting', 'prioritized')).toBe(1);
  });
});
