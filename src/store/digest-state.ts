// Each digest's state (src/digest/): the end of the window last delivered (`watermark`), the period
// done (`period`), a delivery under way (`pendingPeriod`, `pendingEnd`), the org-wide digest's Slack
// marks and the per-owner digest's delivery claims. A field set per scope (`org`, `account:<crm>:<tenant>:<id>`, `owner:<crm>:<tenant>:<ownerId>`), changed in one statement.
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

  /**
   * Sets `field` to `value` only if the scope has no such field yet; true when this call set it. Two
   * workers claiming the same delivery: exactly one wins (the row's upsert is one statement).
   */
  async claim(scope: string, field: string, value: string): Promise<boolean> {
    const won = await this.#db
      .insertInto('digest_state')
      .values({ scope, state: JSON.stringify({ [field]: value }) })
      .onConflict((oc) =>
        oc
          .column('scope')
          .doUpdateSet({ state: sql`digest_state.state || excluded.state`, updated_at: new Date() })
          .where(sql<boolean>`NOT jsonb_exists(digest_state.state, ${field})`),
      )
      .returning('scope')
      .execute();
    return won.length > 0;
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
