import { describe, expect, it } from 'vitest';
import { AccountNotFoundError, CrmAuthError, CrmRateLimitError } from '../../connectors/types.ts';
import { cappedExponentialBackoff, classifyFailure } from '../../queues/failure.ts';
import { AuthenticationError, RateLimitError, ServerError } from '../../src/buyer-intel/errors.ts';

describe('classifyFailure', () => {
  it('parks the queue for an upstream 429 without spending an attempt', () => {
    expect(classifyFailure(new RateLimitError('429', { operation: 'x', retryAfterMs: 3000 }))).toMatchObject({
      action: 'rate-limit',
      delayMs: 3000,
    });
    expect(classifyFailure(new RateLimitError('429', { operation: 'x' }))).toMatchObject({
      action: 'rate-limit',
      delayMs: 10_000,
    });
  });

  it('delays only the job for one CRM tenant’s limit, so other tenants go on', () => {
    expect(classifyFailure(new CrmRateLimitError('429', 7000, 'TEN_SECONDLY_ROLLING'))).toMatchObject({
      action: 'defer',
      delayMs: 7000,
    });
  });

  it('fails at once when retrying cannot help, with a reason', () => {
    expect(classifyFailure(new AccountNotFoundError('12'))).toMatchObject({
      action: 'fail',
      reason: expect.stringContaining('not found'),
    });
    expect(classifyFailure(new CrmAuthError('401'))).toMatchObject({ action: 'fail' });
    expect(classifyFailure(new AuthenticationError('401', { operation: 'x', status: 401 }))).toMatchObject({
      action: 'fail',
    });
    const permanent = new Error('unknown property');
    permanent.name = 'PermanentWriteError';
    expect(classifyFailure(permanent)).toMatchObject({ action: 'fail' });
    for (const name of ['HubSpotRequestError', 'SalesforceRequestError']) {
      const refused = new Error('refused');
      refused.name = name;
      expect(classifyFailure(refused).action).toBe('fail');
    }
  });

  it('retries everything else', () => {
    expect(classifyFailure(new ServerError('500', { operation: 'x', status: 500 })).action).toBe('retry');
    expect(classifyFailure(new Error('socket hang up')).action).toBe('retry');
  });
});

describe('cappedExponentialBackoff', () => {
  it('doubles from 2 s and stops at 5 minutes, jittered within the upper half', () => {
    expect(cappedExponentialBackoff(1, () => 1)).toBe(2_000);
    expect(cappedExponentialBackoff(1, () => 0)).toBe(1_000);
    expect(cappedExponentialBackoff(4, () => 1)).toBe(16_000);
    expect(cappedExponentialBackoff(4, () => 0)).toBe(8_000);
    expect(cappedExponentialBackoff(30, () => 1)).toBe(300_000);
    expect(cappedExponentialBackoff(30, () => 0)).toBe(150_000);
    for (let attempt = 1; attempt <= 12; attempt++) {
      const ceiling = Math.min(300_000, 2_000 * 2 ** (attempt - 1));
      const delay = cappedExponentialBackoff(attempt);
      expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delay).toBeLessThanOrEqual(ceiling);
    }
  });
});
