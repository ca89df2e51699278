// A worker's account slots: never more accounts in flight than its capacity, a webhook's account served
// before a backfill chunk's, and a chunk that waits for a good share of slots rather than one at a time.
import { describe, expect, it } from 'vitest';
import { AccountSlots } from '../../queues/account-slots.ts';

describe('account slots', () => {
  it('grants what is free up to the want, and no more than the capacity in all', async () => {
    const slots = new AccountSlots(10);
    expect(await slots.take(4, 50)).toBe(4);
    expect(await slots.take(100, 50)).toBe(6);
    expect(slots.free).toBe(0);
    const later = slots.take(3, 50);
    slots.release(2);
    expect(await later).toBe(2);
  });

  it('serves the lower priority number first, in arrival order within one', async () => {
    const slots = new AccountSlots(1);
    await slots.take(1, 50);
    const order: string[] = [];
    const chunk = slots.take(1, 50).then(() => order.push('backfill'));
    const webhook = slots.take(1, 5).then(() => order.push('webhook'));
    const refresh = slots.take(1, 1).then(() => order.push('refresh'));
    for (let i = 0; i < 3; i++) slots.release(1);
    await Promise.all([chunk, webhook, refresh]);
    expect(order).toEqual(['refresh', 'webhook', 'backfill']);
  });

  it('makes a waiter that wants a group wait until at least `least` slots are free', async () => {
    const slots = new AccountSlots(10);
    await slots.take(10, 5);
    let granted = 0;
    const group = slots.take(8, 50, 5).then((n) => {
      granted = n;
    });
    slots.release(1);
    slots.release(3);
    await Promise.resolve();
    expect(granted).toBe(0);
    slots.release(2);
    await group;
    expect(granted).toBe(6);
  });

  it('gives a webhook’s account a slot free now while a chunk waits for its group', async () => {
    const slots = new AccountSlots(10);
    await slots.take(6, 50);
    let group = 0;
    const chunk = slots.take(10, 50, 5).then((n) => {
      group = n;
    });
    // Four are free, the chunk wants five: the webhook's account need not wait for a release.
    expect(await slots.take(1, 5)).toBe(1);
    expect(group).toBe(0);
    slots.release(6);
    await chunk;
    expect(group).toBe(9);
  });

  it('keeps the slots a chunk leaves for those who come after it', async () => {
    const slots = new AccountSlots(10);
    expect(await slots.take(100, 50, 5, 2)).toBe(8);
    expect(slots.free).toBe(2);
    expect(await slots.take(1, 5)).toBe(1);
    expect(await slots.take(1, 5)).toBe(1);
    // A second chunk waits for its group beyond what it leaves.
    let second = 0;
    const next = slots.take(100, 50, 5, 2).then((n) => {
      second = n;
    });
    slots.release(6);
    await Promise.resolve();
    expect(second).toBe(0);
    slots.release(1);
    await next;
    expect(second).toBe(5);
  });
});
