// The CRM connections added at run time, each record as its encrypted blob (src/tenants/store.ts
// encrypts and decrypts; this table never sees a token in the clear).
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface TenantRow {
  crm: string;
  tenant: string;
  record: string;
}

export class TenantRows {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async put(row: TenantRow): Promise<void> {
    await this.#db
      .insertInto('crm_tenants')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['crm', 'tenant']).doUpdateSet({ record: row.record, updated_at: new Date() }),
      )
      .execute();
  }

  /** Adds the rows not there yet (an import must not undo a change made since); returns how many. */
  async putMissing(rows: readonly TenantRow[]): Promise<number> {
    if (!rows.length) return 0;
    const added = await this.#db
      .insertInto('crm_tenants')
      .values([...rows])
      .onConflict((oc) => oc.columns(['crm', 'tenant']).doNothing())
      .returning('tenant')
      .execute();
    return added.length;
  }

  async remove(crm: string, tenant: string): Promise<boolean> {
    const r = await this.#db
      .deleteFrom('crm_tenants')
      .where('crm', '=', crm)
      .where('tenant', '=', tenant)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async list(): Promise<TenantRow[]> {
    return this.#db
      .selectFrom('crm_tenants')
      .select(['crm', 'tenant', 'record'])
      .orderBy('crm')
      .orderBy('tenant')
      .execute();
  }
}
