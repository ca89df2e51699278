// Accounts listed by date page by a keyset cursor. PostgreSQL keeps an instant to the microsecond; rows
// written by SQL (an import, a bulk seed, `now()`) carry microseconds a JavaScript Date cannot hold, and a
// cursor cut to the millisecond skipped (newest first) or repeated (oldest first) the rows of that
// millisecond. Written on the server directly, so only on PostgreSQL.
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { Store } from '../../src/store/store.ts';
import { freshPostgresDatabase, itWithPostgres } from '../helpers/databases.ts';

let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let store: Store | undefined;
const N = 23;

beforeAll(async () => {
  db = await freshPostgresDatabase();
  if (!db) return;
  store = new Store({ url: db.url });
  const { outcomes } = await store.open();
  for (let i = 0; i < N; i++)
    await outcomes.record({
      crm: 'hubspot',
      tenant: 'p1',
      accountId: `a${i}`,
      accountName: `Account ${i}`,
      state: 'TX',
      status: 'no_match',
      matchedBy: null,
      buyerId: null,
      buyerName: null,
      buyerType: null,
      confidence: null,
      reason: 'nothing found',
      candidates: [],
      detail: {
        source: 'search',
        fields: [],
        written: {},
        notes: { created: [], alreadyPresent: 0, overCap: 0 },
      },
      trigger: 'backfill',
      at: new Date('2026-03-01T12:00:00.000Z'),
    });
  // Every row in the same millisecond, a microsecond apart, in the reverse order of their ids.
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(
    `update account_outcomes set updated_at = timestamptz '2026-03-01T12:00:00.000Z' + (1000 - id) * interval '1 microsecond'`,
  );
  await client.end();
});

afterAll(async () => {
  await store?.close();
  await db?.drop();
});

for (const direction of ['asc', 'desc'] as const)
  itWithPostgres(`pages ${direction} by date return every row of one millisecond once`, async () => {
    const { outcomes } = await (store as Store).open();
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      const page = await outcomes.list({}, { sort: 'date', direction, limit: 4, after });
      seen.push(...page.rows.map((r) => r.accountId));
      if (!page.next) break;
      after = page.next;
    }
    expect(seen).toHaveLength(N);
    expect(new Set(seen).size).toBe(N);
  });
