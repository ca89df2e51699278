// Digest scheduling on real Redis: two "workers" registering the schedulers leave one per id with the
// configured pattern and time zone; a scheduled job runs with its scheduled time as the window end;
// settings validation, periods, and the run lock.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDigestQueue,
  digestSchedulerId,
  registerDigestSchedulers,
  startDigestWorker,
} from '../../queues/digest-queue.ts';
import { BuyerIntelClient } from '../../src/buyer-intel/client.ts';
import {
  DIGEST_KINDS,
  DigestBusyError,
  type DigestDeps,
  type DigestRunResult,
} from '../../src/digest/deps.ts';
import { periodOf, periodUnitOf, relativePeriodCovering } from '../../src/digest/period.ts';
import { digestProcessor, digestSchedules, runDigestNow } from '../../src/digest/run.ts';
import { digestSettingsFromEnv, parseDigestSettings } from '../../src/digest/settings.ts';
import { Ledgers } from '../../src/write/ledgers.ts';
import { DAY, deleteKeys, REDIS_URL } from './helpers.ts';

const prefix = `test-digest-sched-${randomUUID().slice(0, 8)}`;
let a: Redis;
let b: Redis;

beforeAll(() => {
  a = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  b = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
});

afterAll(async () => {
  const q = createDigestQueue(a, { prefix });
  await q.obliterate({ force: true }).catch(() => undefined);
  await q.close();
  await deleteKeys(a, prefix);
  a.disconnect();
  b.disconnect();
});

const settings = parseDigestSettings({
  perAccount: { pattern: '0 8 * * 1', tz: 'America/Chicago', lookbackDays: 7, maxSignals: 5 },
  orgWide: {
    pattern: '30 7 * * 1-5',
    tz: 'Europe/Berlin',
    maxSignals: 10,
    slackWebhookUrl: 'https://hooks.slack.example/services/T/B/secret',
  },
});

describe('registerDigestSchedulers', () => {
  it('two workers registering at once leave exactly one scheduler per id', async () => {
    const q1 = createDigestQueue(a, { prefix });
    const q2 = createDigestQueue(b, { prefix });
    await Promise.all([
      registerDigestSchedulers(q1, DIGEST_KINDS, digestSchedules(settings)),
      registerDigestSchedulers(q2, DIGEST_KINDS, digestSchedules(settings)),
    ]);
    await registerDigestSchedulers(q2, DIGEST_KINDS, digestSchedules(settings));
    const schedulers = await q1.getJobSchedulers();
    expect(schedulers.map((s) => s.key).sort()).toEqual(['digest:org-wide', 'digest:per-account']);
    const byId = new Map(schedulers.map((s) => [s.key, s]));
    expect(byId.get(digestSchedulerId('per-account'))).toMatchObject({
      pattern: '0 8 * * 1',
      tz: 'America/Chicago',
      name: 'per-account',
    });
    expect(byId.get(digestSchedulerId('org-wide'))).toMatchObject({
      pattern: '30 7 * * 1-5',
      tz: 'Europe/Berlin',
      name: 'org-wide',
    });
    // One upcoming job per scheduler, and the secret webhook URL is in no job.
    const delayed = await q1.getDelayed();
    expect(delayed).toHaveLength(2);
    expect(JSON.stringify(delayed.map((j) => j.asJSON()))).not.toContain('secret');
    expect(JSON.stringify(schedulers)).not.toContain('secret');

    // A changed pattern replaces; a digest no longer configured loses its scheduler.
    await registerDigestSchedulers(
      q1,
      DIGEST_KINDS,
      digestSchedules(parseDigestSettings({ perAccount: { pattern: '0 9 * * 1', tz: 'UTC' } })),
    );
    const after = await q2.getJobSchedulers();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ key: 'digest:per-account', pattern: '0 9 * * 1', tz: 'UTC' });
    expect(await q1.getDelayed()).toHaveLength(1);
    await Promise.all([q1.obliterate({ force: true }), q1.close(), q2.close()]);
  });

  it('a scheduled job runs with its scheduled time as the window end', async () => {
    const queuePrefix = `${prefix}-run`;
    const queue = createDigestQueue(a, { prefix: queuePrefix });
    const deps: DigestDeps = {
      // No account is matched, so the API is never called.
      buyerIntel: new BuyerIntelClient({ baseUrl: 'http://127.0.0.1:9', token: 't', rateLimit: false }),
      connectorFor: () => {
        throw new Error('no CRM in this test');
      },
      ledgers: new Ledgers(a, `${prefix}:ledger`),
      state: { get: async () => ({}), update: async () => undefined, claim: async () => true },
      redis: a,
      prefix,
      settings: parseDigestSettings({ perAccount: { pattern: '* * * * * *', tz: 'UTC', period: 'day' } }),
    };
    const worker = startDigestWorker({
      connection: b,
      processor: digestProcessor(deps),
      prefix: queuePrefix,
    });
    try {
      const done = new Promise<{ id: string | undefined; result: DigestRunResult }>((resolve, reject) => {
        worker.on('completed', (job, result) => resolve({ id: job.id, result }));
        worker.on('failed', (_job, err) => reject(err));
      });
      await registerDigestSchedulers(queue, DIGEST_KINDS, digestSchedules(deps.settings));
      const { id, result } = await done;
      const slot = Number(/(\d+)$/.exec(id ?? '')?.[1]);
      expect(result.windowEnd).toBe(new Date(slot).toISOString());
      expect(result.period).toBe(`day-${new Date(slot).toISOString().slice(0, 10)}`);
      expect(result.counts).toMatchObject({ written: 0, failed: 0 });
    } finally {
      await queue.removeJobScheduler(digestSchedulerId('per-account'));
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('one run of a kind at a time: runDigestNow refuses while another holds the lock', async () => {
    const deps = { redis: a, prefix, settings } as unknown as DigestDeps;
    await a.set(`${prefix}:digest:lock:org-wide`, 'someone-else', 'PX', 5_000);
    await expect(runDigestNow(deps, 'org-wide')).rejects.toBeInstanceOf(DigestBusyError);
    await a.del(`${prefix}:digest:lock:org-wide`);
  });
});

describe('digest settings and periods', () => {
  it('validates without echoing the webhook URL', () => {
    expect(() =>
      parseDigestSettings({
        orgWide: { pattern: 'not a cron', tz: 'UTC', slackWebhookUrl: 'ftp://x/secret' },
      }),
    ).toThrow(/orgWide\.pattern/);
    try {
      parseDigestSettings({ orgWide: { pattern: '0 8 * * 1', slackWebhookUrl: 'ftp://x/secret' } });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/slackWebhookUrl/);
      expect((err as Error).message).not.toContain('secret');
    }
    expect(() => parseDigestSettings({ orgWide: { pattern: '0 8 * * 1' } })).toThrow(/target record/);
    expect(() => parseDigestSettings({ perAccount: { pattern: '0 8 * * 1', tz: 'Mars/Base' } })).toThrow(
      /tz/,
    );
  });

  it('reads the environment', () => {
    const s = digestSettingsFromEnv({
      DIGEST_PER_ACCOUNT_CRON: '0 8 * * 1',
      DIGEST_TZ: 'America/Chicago',
      DIGEST_LOOKBACK_DAYS: '14',
      DIGEST_ORG_CRON: '0 7 * * 1',
      DIGEST_ORG_TARGET: 'hubspot:12345:678',
      DIGEST_SLACK_WEBHOOK_URL: 'https://hooks.slack.example/services/x',
      DIGEST_FILTER_TYPES: 'RFP, Meeting',
    });
    expect(s.perAccount).toMatchObject({
      pattern: '0 8 * * 1',
      tz: 'America/Chicago',
      lookbackDays: 14,
      maxSignals: 10,
    });
    expect(s.orgWide).toMatchObject({
      target: { crm: 'hubspot', tenant: '12345', accountId: '678' },
      scope: 'matched',
      filterType: ['RFP', 'Meeting'],
    });
    expect(digestSettingsFromEnv({ DIGEST_PER_ACCOUNT_CRON: 'off' })).toEqual({});
  });

  it('derives the period from the scheduled time in the time zone', () => {
    // Monday 2026-11-16 03:00 UTC is still Sunday 2026-11-15 in Chicago: the week of 2026-11-09 there.
    const at = new Date('2026-11-16T03:00:00Z');
    expect(periodOf(at, 'UTC', 'week')).toEqual({
      unit: 'week',
      id: 'week-2026-11-16',
      label: 'week of 2026-11-16',
    });
    expect(periodOf(at, 'America/Chicago', 'week').id).toBe('week-2026-11-09');
    expect(periodOf(at, 'America/Chicago', 'day').id).toBe('day-2026-11-15');
    expect(periodOf(at, 'Asia/Tokyo', 'month')).toEqual({
      unit: 'month',
      id: 'month-2026-11',
      label: 'November 2026',
    });
    expect(periodUnitOf('0 8 * * 1', 'America/Chicago')).toBe('week');
    expect(periodUnitOf('0 8 * * 1,4', 'UTC')).toBe('day');
    expect(periodUnitOf('0 8 * * *', 'UTC')).toBe('day');
    expect(periodUnitOf('0 8 1 * *', 'UTC')).toBe('month');
    const now = new Date('2026-11-22T00:00:00Z');
    expect(relativePeriodCovering(new Date(now.getTime() - 7 * DAY), now)).toBe('LastThirtyDays');
    expect(relativePeriodCovering(new Date(now.getTime() - 5 * DAY), now)).toBe('LastSevenDays');
    expect(relativePeriodCovering(new Date(now.getTime() - 900 * DAY), now)).toBe('LastTwoYears');
  });
});
