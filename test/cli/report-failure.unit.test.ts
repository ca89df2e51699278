// The CLI's top-level failure line (reportFailure, what runCli writes for an error no command handled)
// never shows a secret of the environment: a library's error may carry one in its message or, for
// --verbose, in what it holds (a request's headers, a connection string with its password).
import { afterEach, describe, expect, it } from 'vitest';
import { reportFailure } from '../../src/cli/command.ts';

const TOKEN = 'bi-token-that-must-not-show-7d1e';
const DB_PASSWORD = 'pg-password-that-must-not-show';
const saved = { env: process.env, write: process.stderr.write };

/** What reportFailure writes to stderr with this environment. */
function reported(err: unknown, verbose: boolean, env: NodeJS.ProcessEnv): string {
  let text = '';
  process.env = env;
  process.stderr.write = ((chunk: string) => {
    text += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    reportFailure('buyer-intel-sync enrich', err, verbose);
  } finally {
    process.env = saved.env;
    process.stderr.write = saved.write;
  }
  return text;
}

afterEach(() => {
  process.env = saved.env;
  process.stderr.write = saved.write;
});

describe('reportFailure', () => {
  const env = {
    BUYER_INTEL_TOKEN: TOKEN,
    DATABASE_URL: `postgres://bis:${DB_PASSWORD}@db.internal:5432/bis`,
  };
  // As an HTTP client's error looks: the request it made, its Authorization header included.
  const err = () =>
    new Error(`request to https://api.example/x?access_token=${TOKEN} failed`, {
      cause: { request: { headers: { authorization: `Bearer ${TOKEN}` } }, connection: env.DATABASE_URL },
    });

  it('is one line naming the command and the message, the secret blanked out', () => {
    expect(reported(err(), false, env)).toBe(
      'buyer-intel-sync enrich: request to https://api.example/x?access_token=*** failed\n',
    );
  });

  it('with --verbose, shows the stack and the cause, with neither secret', () => {
    const text = reported(err(), true, env);
    expect(text).toMatch(/^\s+at /m);
    expect(text).toContain('Bearer ***');
    expect(text).toContain('postgres://bis:***@db.internal');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(DB_PASSWORD);
  });
});
