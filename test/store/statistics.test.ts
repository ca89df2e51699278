// Table statistics are taken after migrations and at a run's start (Store.analyze): without them
// PostgreSQL plans a tenant's duplicates count as a scan of every account of the table (autovacuum off,
// or a table that grew faster than autovacuum analyses it), and the cost per account grows with the run.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { Store } from '../../src/store/store.ts';
import { freshPostgresDatabase, itWithPostgres } from '../helpers/databases.ts';

let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let client: pg.Client;
let store: Store;

beforeAll(async () => {
  database = await freshPostgresDatabase({ migrated: false });
  if (!database) return;
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  // As on a server with autovacuum off: only our own ANALYZE keeps statistics.
  await client.query('alter table if exists account_outcomes set (autovacuum_enabled = false)');
  store = new Store({ url: database.url });
});
afterAll(async () => {
  await client?.end();
  await store?.close();
  await database?.drop();
});

describe('table statistics', () => {
  itWithPostgres(
    'migrating takes them, and a run start takes them again as the table grew',
    async () => {
      expect(await store.migrate()).not.toHaveLength(0);
      await client.query('alter table account_outcomes set (autovacuum_enabled = false)');
      const analysed = await client.query<{ n: string }>(
        `select count(*) as n from pg_stat_user_tables where relname = 'account_outcomes' and last_analyze is not null`,
      );
      expect(Number(analysed.rows[0]?.n)).toBe(1);

      // One tenant's 20,000 accounts over 4,000 buyers, written after the statistics were taken.
      await client.query(`insert into account_outcomes (crm, tenant, account_id, status, cohort, buyer_id, candidates, detail, updated_at)
      select 'hubspot', 't1', 'a-' || i, 'enriched', 'matched_by_name', 'b-' || (i % 4000), '[]', '{}', now()
      from generate_series(1, 20000) i`);
      await store.analyze();
      const stats = await client.query<{ rows: number }>(
        `select reltuples as rows from pg_class where relname = 'account_outcomes'`,
      );
      // Without it the planner still believes the table empty (autovacuum is off).
      expect(Number(stats.rows[0]?.rows)).toBeGreaterThan(19_000);
    },
    60_000,
  );
});
