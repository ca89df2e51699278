// Each digest's state (src/digest/): the end of the window last delivered (`watermark`), the period
// done (`period`), a delivery under way (`pendingPeriod`, `pendingEnd`) and the org-wide digest's Slack
// marks. A field set per scope (`org`, `account:<crm>:<tenant>:<id>`), changed in one statement.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema.ts';

export class DigestStates {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async get(scope: string): Promise<Record<string, string>> {
    const row = await this.#db
      .selectFrom('digest_state')
      .select('state')
      .where('scope', '=', scope)
      .executeTakeFirst();
    return row?.state ?? {};
  }

  /** Sets the fields of `set` and removes those of `drop`, at once (as a MULTI of HSET and HDEL was). */
  async update(scope: string, set: Record<string, string>, drop: readonly string[] = []): Promise<void> {
    let kept: RawBuilder<unknown> = sql`digest_state.state`;
    for (const field of drop) kept = sql`(${kept} - ${field}::text)`;
    await this.#db
      .insertInto('digest_state')
      .values({ scope, state: JSON.stringify(set) })
      .onConflict((oc) =>
        oc.column('scope').doUpdateSet({
          state: sql`${kept} || excluded.state`,
          updated_at: new Date(),
        }),
      )
      .execute();
  }

  /** Adds the scopes not there yet (an import); returns how many. */
  async putMissing(rows: readonly { scope: string; state: Record<string, string> }[]): Promise<number> {
    if (!rows.length) return 0;
    const added = await this.#db
      .insertInto('digest_state')
      .values(rows.map((r) => ({ scope: r.scope, state: JSON.stringify(r.state) })))
      .onConflict((oc) => oc.column('scope').doNothing())
      .returning('scope')
      .execute();
    return added.length;
  }
}
