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
});
