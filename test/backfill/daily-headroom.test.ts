// The backfill gate on a real Redis, fed readings the way a connector's answers feed them: backfill
// waits (an error that defers the job, never fails it) at or below the headroom, other triggers run,
// a stale reading lets one probe through, and the pause is logged once per tenant, not per job.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisCallBudget } from '../../connectors/call-budget.ts';
import { classifyFailure } from '../../queues/failure.ts';
import {
  DailyHeadroomReached,
  dailyHeadroomGate,
  readBackfillPause,
} from '../../src/backfill/daily-headroom.ts';

const prefix = `test-headroom-${randomUUID().slice(0, 8)}`;
let redis: Redis;
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

function setup(tenant: string, clock = { t: 1_000_000 }) {
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
  const budget = redisCallBudget({ redis, prefix, crm: 'crm-x', tenant, now: () => clock.t });
  const gate = dailyHeadroomGate({ redis, prefix, headroom: 0.2, log, now: () => clock.t });
  const job = (trigger: string) => ({ crm: 'crm-x', tenant, trigger });
  return { lines, budget, gate, job, clock };
}

describe('the daily headroom gate', () => {
  it('lets backfill run while more than the headroom is left, or when the CRM never said', async () => {
    const { budget, gate, job } = setup('t1');
    await expect(gate(job('backfill'))).resolves.toBeUndefined();
    await budget.observe({ daily: { limit: 1000, remaining: 201 } });
    await expect(gate(job('backfill'))).resolves.toBeUndefined();
  });

  it('defers backfill at or below the headroom without spending an attempt; other jobs run', async () => {
    const { budget, gate, job, lines } = setup('t2');
    await budget.observe({ daily: { limit: 1000, remaining: 200 } });
    const errors = await Promise.all(
      Array.from({ length: 5 }, () => gate(job('backfill')).catch((e: unknown) => e)),
    );
    for (const err of errors) {
      expect(err).toBeInstanceOf(DailyHeadroomReached);
      expect(classifyFailure(err)).toMatchObject({ action: 'defer', delayMs: 15 * 60_000 });
    }
    for (const trigger of ['webhook', 'refresh', 'review', 'cli'])
      await expect(gate(job(trigger))).resolves.toBeUndefined();
    expect(lines).toEqual([
      'backfill paused: 200 of 1000 daily CRM calls left (20 %), at or below the 20 % kept for other integrations; backfill waits',
    ]);
    expect(await readBackfillPause(redis, prefix, 'crm-x', 't2')).toMatchObject({
      remaining: 200,
      limit: 1000,
    });
  });

  it('resumes (and says so once) when an answer shows the allocation freed', async () => {
    const { budget, gate, job, lines } = setup('t3');
    await budget.observe({ daily: { limit: 1000, remaining: 10 } });
    await expect(gate(job('backfill'))).rejects.toBeInstanceOf(DailyHeadroomReached);
    await budget.observe({ daily: { limit: 1000, remaining: 1000 } });
    await gate(job('backfill'));
    await gate(job('backfill'));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/backfill resumes/);
    expect(await readBackfillPause(redis, prefix, 'crm-x', 't3')).toBeUndefined();
  });

  it('lets one probe through when nothing refreshed the reading for the re-check interval', async () => {
    const { budget, gate, job, clock } = setup('t4');
    await budget.observe({ daily: { limit: 1000, remaining: 0 } });
    clock.t += 15 * 60_000;
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        gate(job('backfill')).then(
          () => 'ran',
          () => 'waited',
        ),
      ),
    );
    expect(outcomes.sort()).toEqual(['ran', 'waited', 'waited', 'waited']);
  });
});
