// The shared call budget on a real Redis: two workers' connectors together never exceed HubSpot's
// rolling limit (the emulator enforces it and answers 429 past it), a budget that stays full ends
// the call with CrmRateLimitError (the queue waits) instead of a 429, and another integration spending
// the same portal's window makes our calls wait for it to roll (HubSpot's headers say so).
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisCallBudget } from '../../connectors/call-budget.ts';
import { createHubSpotConnector } from '../../connectors/hubspot/connector.ts';
import { readBudget } from '../../connectors/limits.ts';
import { CrmRateLimitError } from '../../connectors/types.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';

const prefix = `test-budget-${randomUUID().slice(0, 8)}`;
let redis: Redis;
let hs: RunningHubSpotSandbox;

beforeAll(async () => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  hs = await startHubSpotSandbox({ rateLimits: { tenSecondly: 8, windowMs: 1_000, daily: false } });
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await hs.close();
});

const connector = (tenant: string, maxWaitMs = 10_000, limit: number | undefined = 8, windowMs = 1_000) =>
  createHubSpotConnector({
    accessToken: hs.accessToken,
    portalId: String(hs.portalId),
    basePath: hs.url,
    budget: redisCallBudget({ redis, prefix, crm: 'hubspot', tenant, limit, windowMs, maxWaitMs }),
  });

describe('shared HubSpot call budget', () => {
  it('keeps two workers together under the portal’s limit: no 429', async () => {
    const id = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    const [a, b] = [connector('a'), connector('a')];
    const reads = Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).getAccount(id, []));
    const results = await Promise.all(reads);
    expect(results.every((r) => r.name === 'City of Austin')).toBe(true);
    expect(hs.stats.count('crm.companies.basicApi.getById', 200)).toBe(20);
    expect(hs.stats.count(undefined, 429)).toBe(0);
  });

  it('ends a call with CrmRateLimitError when the budget stays full', async () => {
    await hs.close();
    hs = await startHubSpotSandbox({ rateLimits: false });
    const id = hs.store.createCompany({ name: 'Travis County', state: 'TX' }, { source: 'CRM_UI' }).id;
    // A minute's window: eight calls fill it however slowly a loaded machine sends them (with 1 s, a
    // run on a busy 2-core machine spread them over the window and the ninth found room).
    const impatient = connector('b', 0, 8, 60_000);
    await Promise.all(Array.from({ length: 8 }, () => impatient.getAccount(id, [])));
    const err = await impatient.getAccount(id, []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CrmRateLimitError);
    expect((err as CrmRateLimitError).retryAfterMs).toBeGreaterThan(0);
  });

  it('waits for the window to roll when another integration spent most of it: no 429', async () => {
    await hs.close();
    hs = await startHubSpotSandbox({ rateLimits: { tenSecondly: 20, windowMs: 1_000, daily: false } });
    const id = hs.store.createCompany({ name: 'Hays County', state: 'TX' }, { source: 'CRM_UI' }).id;
    // The customer's other integration, same private app and portal: 16 of the window's 20 calls.
    const other = () =>
      fetch(`${hs.url}/crm/v3/objects/companies/${id}`, {
        headers: { authorization: `Bearer ${hs.accessToken}` },
      });
    const spent = await Promise.all(Array.from({ length: 16 }, other));
    expect(spent.every((r) => r.status === 200)).toBe(true);
    // Our own count alone (20 per window) would let all of these go at once, into 429s.
    const ours = connector('c', 10_000, 20);
    await ours.getAccount(id, []);
    expect((await readBudget(redis, prefix, 'hubspot', 'c')).window).toMatchObject({ max: 20, remaining: 3 });
    const results = await Promise.all(Array.from({ length: 12 }, () => ours.getAccount(id, [])));
    expect(results.every((r) => r.name === 'Hays County')).toBe(true);
    expect(hs.stats.count('crm.companies.basicApi.getById', 200)).toBe(16 + 13);
    expect(hs.stats.count(undefined, 429)).toBe(0);
  });

  it('writes the daily reading again once it moved by a thousandth of the limit, or a minute passed', async () => {
    let t = 1_000_000;
    const budget = redisCallBudget({ redis, prefix, crm: 'hubspot', tenant: 'daily', now: () => t });
    const remaining = async () => (await readBudget(redis, prefix, 'hubspot', 'daily')).daily?.remaining;
    await budget.observe({ daily: { limit: 625_000, remaining: 600_000 } });
    expect(await remaining()).toBe(600_000);
    // One call's worth: a share that moved by 1/625,000 is not written again.
    await budget.observe({ daily: { limit: 625_000, remaining: 599_999 } });
    expect(await remaining()).toBe(600_000);
    // 625 calls: what the headroom gate reads moves with it.
    await budget.observe({ daily: { limit: 625_000, remaining: 599_375 } });
    expect(await remaining()).toBe(599_375);
    await budget.observe({ daily: { limit: 625_000, remaining: 599_370 } });
    expect(await remaining()).toBe(599_375);
    t += 60_000;
    await budget.observe({ daily: { limit: 625_000, remaining: 599_369 } });
    expect(await remaining()).toBe(599_369);
    // A smaller allocation moves by more per call: each of these is written.
    await budget.observe({ daily: { limit: 1_000, remaining: 201 } });
    await budget.observe({ daily: { limit: 1_000, remaining: 200 } });
    expect(await remaining()).toBe(200);
  });
});
