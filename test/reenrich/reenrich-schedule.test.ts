// Scheduled re-enrichment on a real Redis: one scheduler however many workers upsert it, removed when
// switched off; a sweep queues every matched account once per run at the lowest priority.
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnrichQueue, type EnrichQueueData, PRIORITY } from '../../queues/enrich-queue.ts';
import { createMaintenanceQueue, upsertSchedule } from '../../queues/maintenance.ts';
import { loadEnv } from '../../src/config/env.ts';
import { reenrichSweep } from '../../src/reenrich/sweep.ts';
import { Ledgers } from '../../src/write/ledgers.ts';

const prefix = `test-reenrich-${randomUUID().slice(0, 8)}`;
let redis: Redis;
let queue: Queue<EnrichQueueData>;

beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  queue = createEnrichQueue(redis, { prefix });
});
afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

describe('re-enrichment', () => {
  it('queues every matched account once per run, at backfill priority', async () => {
    const ledgers = new Ledgers(redis, `${prefix}:ledger`);
    for (const id of ['1', '2', '3'])
      await ledgers.recordMatch({ crm: 'hubspot', tenant: '42', accountId: id }, `buyer-${id}`);
    await ledgers.recordMatch({ crm: 'hubspot', tenant: '42', accountId: '4' }, null);
    expect(await reenrichSweep({ ledgers, queue, attempts: 3, runId: 'run-1' })).toEqual({ queued: 3 });
    await reenrichSweep({ ledgers, queue, attempts: 3, runId: 'run-1' }); // a retried run
    const jobs = await queue.getJobs(['prioritized', 'waiting']);
    expect(jobs.map((j) => j.data.accountId).sort()).toEqual(['1', '2', '3']);
    expect(new Set(jobs.map((j) => j.opts.priority))).toEqual(new Set([PRIORITY.backfill]));
    // Logged and recorded as re-enrichment, not as a backfill.
    expect(new Set(jobs.map((j) => j.data.trigger))).toEqual(new Set(['reenrich']));
  });

  it('has one scheduler however many workers upsert it, with the configured pattern and zone', async () => {
    const maintenance = createMaintenanceQueue(redis, { prefix });
    const schedule = { id: 'reenrich', name: 'reenrich-sweep', pattern: '0 4 * * 0', tz: 'America/Chicago' };
    await Promise.all([upsertSchedule(maintenance, schedule), upsertSchedule(maintenance, schedule)]);
    await upsertSchedule(maintenance, { ...schedule, pattern: '0 5 * * 0' });
    const schedulers = await maintenance.getJobSchedulers();
    expect(schedulers).toHaveLength(1);
    expect(schedulers[0]).toMatchObject({ key: 'reenrich', pattern: '0 5 * * 0', tz: 'America/Chicago' });
    await maintenance.removeJobScheduler('reenrich');
    expect(await maintenance.getJobSchedulers()).toHaveLength(0);
    await maintenance.obliterate({ force: true });
    await maintenance.close();
  });

  it('refuses a bad cron pattern or time zone at start, naming the variable', () => {
    const base = {
      BUYER_INTEL_BASE_URL: 'http://127.0.0.1:1',
      BUYER_INTEL_TOKEN: 't',
      HUBSPOT_ACCESS_TOKEN: 'x',
      HUBSPOT_PORTAL_ID: '1',
      HUBSPOT_CLIENT_SECRET: 's',
    };
    expect(loadEnv({ ...base, REENRICH_CRON: 'off' }).REENRICH_CRON).toBeUndefined();
    const bad = () => loadEnv({ ...base, REENRICH_CRON: '61 * * * *', SCHEDULE_TZ: 'Mars/Olympus' });
    expect(bad).toThrow(/REENRICH_CRON is not a cron pattern/);
    expect(bad).toThrow(/SCHEDULE_TZ must be an IANA time zone/);
  });
});
