// The buyer ↔ account index that digests and real-time signals rely on, on a real Redis.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledgers } from '../../src/write/ledgers.ts';

const PREFIX = `test:ledgers:${randomUUID()}`;
let redis: Redis;
let ledgers: Ledgers;
beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  ledgers = new Ledgers(redis, PREFIX);
});
afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

describe('match index', () => {
  const a = { crm: 'hubspot' as const, tenant: '123', accountId: '9001' };
  const b = { crm: 'salesforce' as const, tenant: '00D000000000001', accountId: '001000000000001AAA' };

  it('finds accounts by buyer across CRMs, and moves an account when its buyer changes', async () => {
    await ledgers.recordMatch(a, 'buyer-1');
    await ledgers.recordMatch(b, 'buyer-1');
    expect(await ledgers.accountsOfBuyer('buyer-1')).toEqual(expect.arrayContaining([a, b]));
    await ledgers.recordMatch(a, 'buyer-2');
    expect(await ledgers.accountsOfBuyer('buyer-1')).toEqual([b]);
    expect(await ledgers.accountsOfBuyer('buyer-2')).toEqual([a]);
    expect(await ledgers.buyerOf(a)).toBe('buyer-2');
  });

  it('forgets an account that matches no buyer any more, and lists all matched accounts', async () => {
    await ledgers.recordMatch(b, null);
    expect(await ledgers.accountsOfBuyer('buyer-1')).toEqual([]);
    expect(await ledgers.buyerOf(b)).toBeNull();
    const all = [];
    for await (const page of ledgers.matchedAccounts(1)) all.push(...page);
    expect(all).toEqual([{ account: a, buyerId: 'buyer-2' }]);
  });
});
