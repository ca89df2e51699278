import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/write/batcher.ts';

describe('Batcher', () => {
  it('sends a full batch at once and the rest after the wait', async () => {
    const calls: number[][] = [];
    const b = new Batcher<number, string>({
      maxBatch: 3,
      maxWaitMs: 20,
      send: async (items) => {
        calls.push(items);
        return items.map((i) => `ok ${i}`);
      },
    });
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => b.submit(i)));
    expect(results).toEqual(['ok 1', 'ok 2', 'ok 3', 'ok 4', 'ok 5']);
    expect(calls).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('gives every item of a failed batch the error', async () => {
    const b = new Batcher<number, number>({
      maxBatch: 10,
      maxWaitMs: 5,
      send: async () => Promise.reject(new Error('429')),
    });
    const settled = await Promise.allSettled([b.submit(1), b.submit(2)]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
  });

  it('refuses a send that returns the wrong number of results', async () => {
    const b = new Batcher<number, number>({ maxBatch: 10, maxWaitMs: 5, send: async () => [1] });
    await expect(Promise.all([b.submit(1), b.submit(2)])).rejects.toThrow('returned 1 results for 2 items');
  });

  it('drain sends what is pending without waiting for the timer', async () => {
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
    await b.drain();
    expect(await p).toBe(7);
    expect(sent).toBe(1);
  });
});
