// A mapping version's document as json, not jsonb: jsonb sorts an object's keys, and the order of a
// field's enumLabels is the order of its CRM dropdown's options (setup creates them in it), so a stored
// mapping must come back as it was saved. Rows saved before this keep the order jsonb gave them.
// Frozen once released.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table mapping_versions alter column document type json using document::json`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table mapping_versions alter column document type jsonb using document::jsonb`.execute(db);
}
