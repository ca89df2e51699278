// Migration 0018 on a database that already has write history: the summary it creates counts what is
// there once — per tenant and field, our newest `ok` write (a refusal and an undo are no write of ours)
// and the accounts whose last deciding row is our value (a person's edit and an undo take it back; a
// fill-empty keep decides nothing).
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { expect } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations/index.ts';
import { freshPostgresDatabase, itWithPostgres } from '../helpers/databases.ts';

itWithPostgres('0018 counts the history already recorded once', async () => {
  const database = await freshPostgresDatabase({ migrated: false });
  if (!database) throw new Error('PostgreSQL is needed');
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  try {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
    expect((await migrator.migrateTo('0017_dashboard_counters')).error).toBeUndefined();
    const rows: [string, string, string, string, string | null, string][] = [
      ['a1', 'f', 'write', 'ok', 'x', '2026-01-01'],
      ['a2', 'f', 'write', 'ok', 'x', '2026-01-02'],
      ['a2', 'f', 'blocked-edited-by-person', 'not_sent', '100', '2026-01-03'],
      ['a3', 'f', 'write', 'ok', 'x', '2026-01-04'],
      ['a3', 'f', 'undo', 'ok', null, '2026-01-05'],
      ['a4', 'f', 'write', 'error', 'x', '2026-01-06'],
      ['a4', 'g', 'blocked-not-empty', 'not_sent', 'x', '2026-01-06'],
    ];
    for (const [account, field, decision, result, value, at] of rows)
      await sql`insert into field_writes (crm, tenant, account_id, field, kind, decision, crm_result, new_value, at)
        values ('hubspot', 't', ${account}, ${field}, 'mapped', ${decision}, ${result}, ${value}, ${at}::timestamptz)`.execute(
        db,
      );
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const { rows: summary } = await sql<{ field: string; last_written_at: Date | null; holding: string }>`
      select field, last_written_at, holding from field_summary order by field`.execute(db);
    expect(summary).toEqual([
      { field: 'f', last_written_at: new Date('2026-01-04T00:00:00Z'), holding: '1' },
      { field: 'g', last_written_at: null, holding: '0' },
    ]);
  } finally {
    await db.destroy();
    await database.drop();
  }
});
