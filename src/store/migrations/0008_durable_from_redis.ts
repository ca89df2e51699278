// What earlier versions kept only in Redis and cannot be rebuilt: the CRM connections added at run
// time (each record encrypted with TOKEN_ENCRYPTION_KEY, bound to `<crm>:<tenant>` as before, so a
// blob imported from Redis decrypts unchanged) and each digest's state (watermark, period, a delivery
// under way). `buyer-intel-sync migrate` then copies what Redis holds (src/store/import-redis-durable.ts).
// Frozen once released.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('crm_tenants')
    .addColumn('crm', 'text', (c) => c.notNull())
    .addColumn('tenant', 'text', (c) => c.notNull())
    /** AES-256-GCM (src/tenants/cipher.ts): never a token in the clear. */
    .addColumn('record', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('crm_tenants_pk', ['crm', 'tenant'])
    .execute();
  await db.schema
    .createTable('digest_state')
    /** `org`, or `account:<crm>:<tenant>:<account id>`. */
    .addColumn('scope', 'text', (c) => c.primaryKey())
    .addColumn('state', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('digest_state').execute();
  await db.schema.dropTable('crm_tenants').execute();
}
