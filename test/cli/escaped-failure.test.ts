// An error no command handles itself reaches the CLI's top level (src/cli/command.ts runCli): exit 1 and
// one line on stderr naming the command and the error's message, its stack only with --verbose, and no
// secret of the environment in either. The error is a real one: `runs list` on a migrated database
// whose `runs` table an operator renamed away — the store opens (no migration is pending) and the
// query fails in a way `runs` does not catch.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { runCliInProcess } from '../helpers/cli.ts';
import { freshPostgresDatabase, itWithPostgres } from '../helpers/databases.ts';

let database: { url: string; drop(): Promise<void> } | undefined;
/** DATABASE_URL with a password (the test server trusts local connections, so any one works). */
let urlWithPassword: string;
const PASSWORD = 'db-password-not-for-logs-5f2a9c';
const API_KEY = 'api-key-not-for-logs-0123456789abcdef';
const STACK_FRAME = /^\s+at /m;

beforeAll(async () => {
  database = await freshPostgresDatabase();
  if (!database) return;
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query('alter table runs rename to runs_renamed_away');
  } finally {
    await client.end();
  }
  const u = new URL(database.url);
  u.password = PASSWORD;
  urlWithPassword = u.toString();
}, 60_000);

afterAll(() => database?.drop());

const env = () => ({ DATABASE_URL: urlWithPassword, API_KEYS: API_KEY, BUYER_INTEL_TOKEN: PASSWORD });

describe('an error that escapes a command', () => {
  itWithPostgres('exits 1 with one line naming the command and the error, no stack, no secret', async () => {
    const run = await runCliInProcess(['runs', 'list'], env());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('buyer-intel-sync runs: relation "runs" does not exist\n');
    expect(run.stderr).not.toMatch(STACK_FRAME);
    for (const secret of [PASSWORD, API_KEY]) expect(run.stderr).not.toContain(secret);
  });

  itWithPostgres('shows the stack with --verbose, still without a secret', async () => {
    const run = await runCliInProcess(['runs', 'list', '--verbose'], env());
    expect(run.code).toBe(1);
    const [first, ...rest] = run.stderr.split('\n');
    expect(first).toBe('buyer-intel-sync runs: relation "runs" does not exist');
    expect(rest.join('\n')).toMatch(STACK_FRAME);
    for (const secret of [PASSWORD, API_KEY]) expect(run.stderr).not.toContain(secret);
  });
});
