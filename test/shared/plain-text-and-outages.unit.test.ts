// Two small rules of src/shared: what text from a header or a person becomes in a CRM (plainText: no
// markup, no control characters), and which failures mean a dependency is down (a 503 with
// Retry-After) rather than a bug (a 500), read from the facts the drivers put on their errors.
import { describe, expect, it } from 'vitest';
import { plainText } from '../../src/shared/text.ts';
import { unavailableDependency } from '../../src/shared/unavailable.ts';

describe('plainText', () => {
  it.each([
    ['<img/src=x/onerror=alert(1)>jane@acme.example', 'jane@acme.example'],
    ['a <b>paving</b> contractor<br/>', 'a paving contractor'],
    ['<a href="javascript:x()">click</a> me\u0007 <', 'click me'],
    ['1 < 2 and 3 > 2', '1 2 and 3 2'],
    ['unclosed <script', 'unclosed'],
    ['line\r\nbreak\u202eevil', 'line break evil'],
    ['a private company', 'a private company'],
  ])('%j → %j', (given, plain) => {
    expect(plainText(given)).toBe(plain);
  });
});

describe('unavailableDependency', () => {
  const pgError = (code: string, message: string) =>
    Object.assign(new Error(message), { code, severity: 'FATAL' });

  it('names the database for a server gone, refusing or cut off', () => {
    for (const err of [
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('08006', 'connection failure'),
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new Error('could not record the run', { cause: new Error('Connection terminated unexpectedly') }),
    ])
      expect([err.message, unavailableDependency(err)?.error]).toEqual([err.message, 'store_unavailable']);
  });

  it('names Redis when ioredis will not send', () => {
    for (const message of [
      "Stream isn't writeable and enableOfflineQueue options is false",
      'Connection is closed.',
      'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.',
      'LOADING Redis is loading the dataset in memory',
    ])
      expect([message, unavailableDependency(new Error(message))?.dependency]).toEqual([message, 'Redis']);
  });

  it('leaves a bug or a bad query alone (a 500 stays a 500)', () => {
    expect(unavailableDependency(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(
      undefined,
    );
    expect(unavailableDependency(pgError('23505', 'duplicate key value violates unique constraint'))).toBe(
      undefined,
    );
    expect(unavailableDependency(pgError('42P01', 'relation "runs" does not exist'))).toBe(undefined);
  });
});
