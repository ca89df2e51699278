// The shared call budget on a real Redis: two workers' connectors together never exceed HubSpot's
// rolling limit (the emulator enforces it and answers 429 past it), and a budget that stays full ends
// the call with CrmRateLimitError (the queue waits) instead of a 429.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisCallBudget } from '../../connectors/call-budget.ts';
import { createHubSpotConnector } from '../../connectors/hubspot/connector.ts';
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

const connector = (key: string, maxWaitMs = 10_000) =>
  createHubSpotConnector({
    accessToken: hs.accessToken,
    portalId: String(hs.portalId),
    basePath: hs.url,
    budget: redisCallBudget({ redis, key, limit: 8, windowMs: 1_000, maxWaitMs }),
  });

describe('shared HubSpot call budget', () => {
  it('keeps two workers together under the portal’s limit: no 429', async () => {
    const id = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    const key = `${prefix}:a`;
    const [a, b] = [connector(key), connector(key)];
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
    const impatient = connector(`${prefix}:b`, 0);
    await Promise.all(Array.from({ length: 8 }, () => impatient.getAccount(id, [])));
    const err = await impatient.getAccount(id, []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CrmRateLimitError);
    expect((err as CrmRateLimitError).retryAfterMs).toBeGreaterThan(0);
  });
});
