// Per CRM field of a tenant: when we last wrote a value of ours there and how many accounts hold ours
// now, from the summary rows migration 0018's triggers keep in each write's transaction (a few rows
// whatever the number of accounts: the mapping page's "last written").
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.ts';

export interface FieldWritten {
  crm: string;
  tenant: string;
  /** The mapped property, as the mapping names it. */
  field: string;
  /** When we last wrote (or cleared) a value of ours there; null: never, only other rows recorded. */
  lastWritten: Date | null;
  /** Accounts whose field holds the value we wrote (a person's later edit or an undo takes it back). */
  holding: number;
}

export class FieldSummary {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Every tenant's fields (one statement over the summary's rows), by CRM, tenant and field. */
  async all(): Promise<FieldWritten[]> {
    const rows = await this.#db
      .selectFrom('field_summary')
      .select(['crm', 'tenant', 'field', 'last_written_at', sql<string>`holding`.as('holding')])
      .orderBy('crm')
      .orderBy('tenant')
      .orderBy('field')
      .execute();
    return rows.map((r) => ({
      crm: r.crm,
      tenant: r.tenant,
      field: r.field,
      lastWritten: r.last_written_at === null ? null : new Date(r.last_written_at),
      holding: Number(r.holding),
    }));
  }
}
