// Two small decisions an undo rests on: whether the CRM still holds the value we wrote (CRMs spell a
// value their own way: that is not a person's edit), and how a failed CRM call is retried (a rate
// limit is waited out without spending an attempt, a permanent refusal is not retried, anything else
// is retried with the one backoff, a few times).
import { describe, expect, it } from 'vitest';
import { CrmRateLimitError } from '../../connectors/types.ts';
import { IntegrationError } from '../../src/shared/errors.ts';
import { sameValue } from '../../src/undo/compare.ts';
import { withRetries } from '../../src/undo/retry.ts';
import { failing } from '../helpers/failing.ts';

describe('sameValue', () => {
  it('reads empty, numbers, date-times and line breaks the way CRMs hand them back', () => {
    expect(sameValue(null, '')).toBe(true);
    expect(sameValue(undefined, '  ')).toBe(true);
    expect(sameValue('0.9', '0.90')).toBe(true);
    expect(sameValue('1', '1.0')).toBe(true);
    expect(sameValue('2026-03-01T12:00:00.000Z', '2026-03-01T12:00:00.000+0000')).toBe(true);
    expect(sameValue('2026-03-01T12:00:00Z', '2026-03-01T13:00:00+01:00')).toBe(true);
    expect(sameValue('a\r\nb', 'a\nb')).toBe(true);
    expect(sameValue(' Austin ', 'Austin')).toBe(true);
  });

  it('tells a person’s edit apart', () => {
    expect(sameValue('961855', '975000')).toBe(false);
    expect(sameValue('961855', null)).toBe(false);
    expect(sameValue('2026-03-01T12:00:00.000Z', '2026-03-01T12:00:01.000Z')).toBe(false);
    expect(sameValue('austin', 'Austin')).toBe(false);
    expect(sameValue('2026-03-01', '2026-03-02')).toBe(false);
  });
});

describe('withRetries', () => {
  it('waits out rate limits without spending an attempt, then succeeds', async () => {
    const sleeps: number[] = [];
    const limited = () => new CrmRateLimitError('429', 2_000);
    const f = failing([limited(), limited(), limited(), limited(), limited()]);
    expect(await withRetries(f.call, { attempts: 2, sleep: async (ms) => void sleeps.push(ms) })).toBe('ok');
    expect(sleeps).toEqual([2_000, 2_000, 2_000, 2_000, 2_000]);
  });

  it('gives up once the rate-limit waits would pass maxWaitMs', async () => {
    const f = failing([new CrmRateLimitError('429', 5_000), new CrmRateLimitError('429', 5_000)]);
    await expect(withRetries(f.call, { maxWaitMs: 8_000, sleep: async () => {} })).rejects.toThrow('429');
    expect(f.calls()).toBe(2);
  });

  it('does not retry a permanent refusal or a batch too large', async () => {
    const permanent = failing([new IntegrationError('no such field', { permanent: true })]);
    await expect(withRetries(permanent.call, { sleep: async () => {} })).rejects.toThrow('no such field');
    expect(permanent.calls()).toBe(1);
    const tooMany = failing([new RangeError('at most 100')]);
    await expect(withRetries(tooMany.call, { sleep: async () => {} })).rejects.toThrow('at most 100');
    expect(tooMany.calls()).toBe(1);
  });

  it('retries a passing failure with the backoff, `attempts` tries in all', async () => {
    const sleeps: number[] = [];
    const down = () => new IntegrationError('502', { permanent: false });
    const f = failing([down(), down(), down()]);
    await expect(
      withRetries(f.call, {
        attempts: 3,
        sleep: async (ms) => void sleeps.push(ms),
        backoff: { baseMs: 100, maxMs: 1_000 },
      }),
    ).rejects.toThrow('502');
    expect(f.calls()).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(50);
    expect(sleeps[0]).toBeLessThanOrEqual(100);
    expect(sleeps[1]).toBeGreaterThanOrEqual(100);
    expect(sleeps[1]).toBeLessThanOrEqual(200);
    const recovers = failing([down()]);
    expect(await withRetries(recovers.call, { sleep: async () => {} })).toBe('ok');
  });
});
