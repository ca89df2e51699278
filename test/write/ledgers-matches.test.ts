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

  it('records accounts that end at the same moment each under its own buyer', async () => {
    const tenant = 'chunk';
    const accounts = Array.from({ length: 150 }, (_, i) => ({
      crm: 'hubspot' as const,
      tenant,
      accountId: `c-${i}`,
    }));
    // A chunk's accounts finishing together: three buyers.
    await Promise.all(accounts.map((acc, i) => ledgers.recordMatch(acc, `chunk-buyer-${i % 3}`)));
    const ids = async (buyer: string) =>
      (await ledgers.accountsOfBuyer(buyer)).map((x) => x.accountId).sort();
    expect(await ids('chunk-buyer-0')).toEqual(
      accounts
        .filter((_, i) => i % 3 === 0)
        .map((x) => x.accountId)
        .sort(),
    );
    // Then, again together: some move to another buyer, some to none, the rest stay.
    await Promise.all(
      accounts.map((acc, i) =>
        ledgers.recordMatch(acc, i < 50 ? 'chunk-buyer-9' : i < 100 ? null : `chunk-buyer-${i % 3}`),
      ),
    );
    expect((await ids('chunk-buyer-9')).length).toBe(50);
    expect(await ledgers.buyerOf(accounts[60] as (typeof accounts)[number])).toBeNull();
    const stayed = [
      ...(await ids('chunk-buyer-0')),
      ...(await ids('chunk-buyer-1')),
      ...(await ids('chunk-buyer-2')),
    ];
    expect(stayed.sort()).toEqual(
      accounts
        .slice(100)
        .map((x) => x.accountId)
        .sort(),
    );
  });
});
