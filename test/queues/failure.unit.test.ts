import { describe, expect, it } from 'vitest';
import { CallBudgetTimeout } from '../../connectors/call-budget.ts';
import { HubSpotRequestError, HubSpotTransientError } from '../../connectors/hubspot/errors.ts';
import { SalesforceRequestError, SalesforceTransientError } from '../../connectors/salesforce/errors.ts';
import { TokenRefreshTimeoutError } from '../../connectors/token-refresh.ts';
import { AccountNotFoundError, CrmAuthError, CrmRateLimitError } from '../../connectors/types.ts';
import { cappedExponentialBackoff, classifyFailure } from '../../queues/failure.ts';
import {
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  InvalidArgumentError,
  NotFoundError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
} from '../../src/buyer-intel/errors.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { DigestBusyError } from '../../src/digest/deps.ts';
import { MappingError } from '../../src/map/load-mapping.ts';
import { IntegrationError } from '../../src/shared/errors.ts';
import { AccountBusyError } from '../../src/signals/account-lock.ts';
import { PermanentWriteError } from '../../src/write/errors.ts';

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
    expect(classifyFailure(new CallBudgetTimeout('budget', 900))).toMatchObject({
      action: 'defer',
      delayMs: 900,
    });
    // HubSpot's "locked, wait 2 s" concerns this job only.
    const locked = new HubSpotTransientError('423', { operation: 'x', status: 423, retryAfterMs: 2_000 });
    expect(classifyFailure(locked)).toMatchObject({ action: 'defer', delayMs: 2_000 });
  });

  it('a 429 that names no wait waits the default, in the scope its limit says', () => {
    const shared = new IntegrationError('429', { permanent: false, status: 429, limit: 'shared' });
    expect(classifyFailure(shared)).toMatchObject({ action: 'rate-limit', delayMs: 10_000 });
    const tenant = new IntegrationError('429', { permanent: false, status: 429, limit: 'tenant' });
    expect(classifyFailure(tenant)).toMatchObject({ action: 'defer', delayMs: 10_000 });
  });

  it('fails at once when retrying cannot help, with a reason', () => {
    expect(classifyFailure(new AccountNotFoundError('12'))).toMatchObject({
      action: 'fail',
      reason: 'CRM account not found: 12',
    });
    expect(classifyFailure(new CrmAuthError('refused', 401))).toEqual({
      action: 'fail',
      reason: 'credentials refused: refused',
    });
    expect(classifyFailure(new CrmAuthError('401'))).toMatchObject({ action: 'fail' });
    expect(classifyFailure(new AuthenticationError('401', { operation: 'x', status: 401 }))).toMatchObject({
      action: 'fail',
      reason: expect.stringContaining('credentials refused'),
    });
    const permanent = [
      new NotFoundError('404', { operation: 'x', status: 404 }),
      new BadRequestError('400', { operation: 'x', status: 400 }),
      new InvalidArgumentError('bad page size', { operation: 'x' }),
      new PermanentWriteError('unknown property'),
      new MappingError('mapping.yaml', []),
      new ConfigError(['HUBSPOT_PORTAL_ID is missing']),
      new HubSpotRequestError('refused', { operation: 'x', status: 400 }),
      new SalesforceRequestError('refused', { operation: 'x', errorCode: 'INVALID_FIELD' }),
    ];
    for (const err of permanent) expect(classifyFailure(err).action, err.name).toBe('fail');
  });

  it('retries everything else', () => {
    const transient = [
      new ServerError('500', { operation: 'x', status: 500 }),
      new ConnectionError('reset', { operation: 'x' }),
      new TimeoutError('slow', { operation: 'x' }),
      new ResponseValidationError('not JSON', { operation: 'x', status: 200, path: '(root)' }),
      new HubSpotTransientError('503', { operation: 'x', status: 503 }),
      new SalesforceTransientError('500', { operation: 'x', errorCode: 'ERROR_HTTP_500' }),
      new TokenRefreshTimeoutError('token', 30_000),
      new DigestBusyError('org-wide'),
      new AccountBusyError('busy'),
    ];
    for (const err of transient) expect(classifyFailure(err).action, err.name).toBe('retry');
    expect(classifyFailure(new Error('socket hang up')).action).toBe('retry');
    expect(classifyFailure('a string').action).toBe('retry');
  });

  it('handles a new upstream’s errors from their facts alone, with no change to failure.ts', () => {
    class ThirdCrmError extends IntegrationError {}
    expect(classifyFailure(new ThirdCrmError('invalid field', { permanent: true, status: 400 }))).toEqual({
      action: 'fail',
      reason: 'invalid field',
    });
    expect(classifyFailure(new ThirdCrmError('bad gateway', { permanent: false, status: 502 }))).toEqual({
      action: 'retry',
      reason: 'bad gateway',
    });
    const limited = new ThirdCrmError('slow down', {
      permanent: false,
      retryAfterMs: 4_000,
      limit: 'tenant',
    });
    expect(classifyFailure(limited)).toEqual({ action: 'defer', delayMs: 4_000, reason: 'slow down' });
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
