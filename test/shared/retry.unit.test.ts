// The one retry executor: what a caller notices — how often a call is tried, how long it waits, and
// which failure ends it — for the plans the loops of the project use.
import { describe, expect, it } from 'vitest';
import { CrmRateLimitError } from '../../connectors/types.ts';
import { IntegrationError } from '../../src/shared/errors.ts';
import { AT_ONCE, retrying } from '../../src/shared/retry.ts';
import { failing } from '../helpers/failing.ts';

const down = () => new IntegrationError('502', { permanent: false, status: 502 });
const backoff = { baseMs: 100, maxMs: 1_000 };

describe('retrying', () => {
  it('tries again with the one backoff until the call answers', async () => {
    const sleeps: number[] = [];
    const f = failing([down(), down()]);
    const answer = await retrying(f.call, {
      tries: 3,
      backoff,
      random: () => 1,
      sleep: async (ms) => void sleeps.push(ms),
    });
    expect(answer).toBe('ok');
    expect(sleeps).toEqual([100, 200]);
  });

  it('gives up with the last failure after `tries`, and at once on a permanent one', async () => {
    const f = failing([down(), down(), down()]);
    await expect(retrying(f.call, { tries: 2, backoff, sleep: async () => {} })).rejects.toThrow('502');
    expect(f.calls()).toBe(2);
    const refused = failing([new IntegrationError('no such field', { permanent: true }), down()]);
    await expect(retrying(refused.call, { tries: 5, backoff, sleep: async () => {} })).rejects.toThrow(
      'no such field',
    );
    expect(refused.calls()).toBe(1);
    const ours = failing([new RangeError('at most 100 ids')]);
    await expect(retrying(ours.call, { tries: 5, backoff, sleep: async () => {} })).rejects.toThrow(
      'at most',
    );
    expect(ours.calls()).toBe(1);
  });

  it('waits what a rate limit asks; free of tries when the plan says so, within the wait budget', async () => {
    const sleeps: number[] = [];
    const limited = () => new CrmRateLimitError('429', 2_000);
    const free = failing([limited(), limited(), limited()]);
    const plan = {
      tries: 1,
      backoff,
      waitsSpendTries: false,
      sleep: async (ms: number) => void sleeps.push(ms),
    };
    expect(await retrying(free.call, plan)).toBe('ok');
    expect(sleeps).toEqual([2_000, 2_000, 2_000]);
    const budgeted = failing([limited(), limited(), limited()]);
    await expect(retrying(budgeted.call, { ...plan, maxWaitMs: 5_000 })).rejects.toThrow('429');
    expect(budgeted.calls()).toBe(3);
  });

  it('gives up on a wait longer than the plan holds a call, for the queue to park the job', async () => {
    const f = failing([new CrmRateLimitError('429', 60_000)]);
    await expect(
      retrying(f.call, { tries: 5, backoff, maxRetryAfterMs: 30_000, sleep: async () => {} }),
    ).rejects.toThrow('429');
    expect(f.calls()).toBe(1);
  });

  it('waits the default for a 429 that names no wait, where the plan has one', async () => {
    const sleeps: number[] = [];
    const f = failing([new IntegrationError('429', { permanent: false, status: 429 })]);
    await retrying(f.call, {
      tries: 2,
      backoff,
      rateLimitWaitMs: 10_000,
      sleep: async (ms) => void sleeps.push(ms),
    });
    expect(sleeps).toEqual([10_000]);
  });

  it('reads a failure with no facts as the plan says, or as `classify` reads it', async () => {
    const plain = () => new Error('socket hang up');
    const retried = failing([plain()]);
    expect(await retrying(retried.call, { tries: 2, backoff, sleep: async () => {} })).toBe('ok');
    const stopped = failing([plain()]);
    await expect(
      retrying(stopped.call, { tries: 2, backoff, unknown: 'permanent', sleep: async () => {} }),
    ).rejects.toThrow('socket');
    const raced = failing([Object.assign(new Error('duplicate key'), { code: '23505' })]);
    const sleeps: number[] = [];
    const answer = await retrying(raced.call, {
      tries: 3,
      backoff: AT_ONCE,
      classify: (err) => ({ permanent: (err as { code?: string }).code !== '23505' }),
      sleep: async (ms) => void sleeps.push(ms),
    });
    expect(answer).toBe('ok');
    expect(sleeps).toEqual([0]);
  });

  it('tells each wait before it starts, and stops waiting when its signal aborts', async () => {
    const told: [string, number, number][] = [];
    const f = failing([down(), down()]);
    await retrying(f.call, {
      tries: 3,
      backoff,
      random: () => 0,
      sleep: async () => {},
      onRetry: (err, ms, attempt) => told.push([(err as Error).message, ms, attempt]),
    });
    expect(told).toEqual([
      ['502', 50, 1],
      ['502', 100, 2],
    ]);
    const controller = new AbortController();
    controller.abort(new Error('interrupted'));
    const g = failing([down(), down()]);
    await expect(retrying(g.call, { tries: 3, backoff, signal: controller.signal })).rejects.toThrow();
    expect(g.calls()).toBe(1);
  });

  it('never retries once the caller gave up, whatever the failure, even with a sleep that ignores the signal', async () => {
    const controller = new AbortController();
    let calls = 0;
    const call = async () => {
      calls++;
      // What a paced request meets when its caller gives up while it waits for its slot.
      controller.abort(new Error('given up'));
      throw down();
    };
    await expect(
      retrying(call, { tries: 3, backoff, signal: controller.signal, sleep: async () => {} }),
    ).rejects.toThrow('given up');
    expect(calls).toBe(1);
  });
});
