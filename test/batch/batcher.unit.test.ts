import { afterEach, describe, expect, it, vi } from 'vitest';
import { Batcher } from '../../src/batch/batcher.ts';

/** A send the test answers by hand: each call waits until `answer(n)` releases it. */
function manualSend() {
  const calls: { items: number[]; release: (err?: Error) => void }[] = [];
  const send = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({ items, release: (err) => (err ? reject(err) : resolve(items.map((i) => `ok ${i}`))) });
    });
  return { calls, send };
}

const ticks = async (n = 5) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

afterEach(() => {
  vi.useRealTimers();
});

describe('Batcher (group commit)', () => {
  it('sends a lone item alone and at once, without waiting for any timer', async () => {
    vi.useFakeTimers();
    const { calls, send } = manualSend();
    const b = new Batcher<number, string>({ maxBatch: 100, send });
    const result = b.submit(1);
    await ticks();
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    calls[0]?.release();
    expect(await result).toBe('ok 1');
  });

  it('sends items that arrive while a batch is in flight together, as one next call', async () => {
    const { calls, send } = manualSend();
    const b = new Batcher<number, string>({ maxBatch: 100, send });
    const first = b.submit(1);
    await ticks();
    const later = [2, 3, 4, 5].map((i) => b.submit(i));
    await ticks();
    expect(calls.map((c) => c.items)).toEqual([[1]]);
    calls[0]?.release();
    await first;
    await ticks();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4, 5]]);
    calls[1]?.release();
    expect(await Promise.all(later)).toEqual(['ok 2', 'ok 3', 'ok 4', 'ok 5']);
  });

  it('respects maxBatch: a full batch leaves at once while at most maxInFlight are in flight', async () => {
    const { calls, send } = manualSend();
    const b = new Batcher<number, string>({ maxBatch: 3, maxInFlight: 2, send });
    const all = [b.submit(1)];
    await ticks();
    all.push(...[2, 3, 4, 5, 6, 7, 8, 9].map((i) => b.submit(i)));
    await ticks();
    // [1] in flight, then one full batch joins it; the rest wait for a slot.
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    calls[0]?.release();
    await ticks();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4], [5, 6, 7]]);
    calls[1]?.release();
    calls[2]?.release();
    await ticks(20);
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4], [5, 6, 7], [8, 9]]);
    calls[3]?.release();
    expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => `ok ${i}`));
    expect(calls.every((c) => c.items.length <= 3)).toBe(true);
  });

  it('gives each submitter its own result, and a failed batch’s error only to that batch', async () => {
    const { calls, send } = manualSend();
    const b = new Batcher<number, string>({ maxBatch: 10, send });
    const one = b.submit(1);
    await ticks();
    const two = b.submit(2);
    const three = b.submit(3);
    calls[0]?.release(new Error('429'));
    await expect(one).rejects.toThrow('429');
    await ticks();
    calls[1]?.release();
    expect([await two, await three]).toEqual(['ok 2', 'ok 3']);
  });

  it('refuses a send that returns the wrong number of results', async () => {
    const b = new Batcher<number, number>({ maxBatch: 10, send: async () => [1] });
    await expect(Promise.all([b.submit(1), b.submit(2)])).rejects.toThrow('returned 1 results for 2 items');
  });

  it('keeps an optional linger, and drain sends what lingers without waiting for it', async () => {
    let sent = 0;
    const b = new Batcher<number, number>({
      maxBatch: 100,
      maxWaitMs: 60_000,
      send: async (items) => {
        sent += items.length;
        return items;
      },
    });
    const p = b.submit(7);
    await ticks();
    expect(sent).toBe(0);
    await b.drain();
    expect(await p).toBe(7);
    expect(sent).toBe(1);
  });

  it('a lingering batch leaves when its oldest item has waited maxWaitMs', async () => {
    vi.useFakeTimers();
    const { calls, send } = manualSend();
    const b = new Batcher<number, string>({ maxBatch: 100, maxWaitMs: 1_000, send });
    void b.submit(1);
    await vi.advanceTimersByTimeAsync(500);
    void b.submit(2);
    await vi.advanceTimersByTimeAsync(499);
    expect(calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.map((c) => c.items)).toEqual([[1, 2]]);
  });
});
