// A batch of rows as one json parameter, read back as a relation by json_to_recordset: one statement
// whatever the batch's size, as unnest's arrays were, without their cost. node-postgres spells each
// array parameter as text, escaping every element (a JSON column's quotes twice over) through string
// concatenation: in a backfill those arrays were a tenth of what the worker allocated. A JSON
// parameter travels as the text JSON.stringify wrote, nested JSON (jsonb columns) as itself. json, not
// jsonb: the server reads the text once, without building jsonb's binary form of all of it first.
import { type RawBuilder, sql } from 'kysely';

/** The relation's columns, in order: each a key of the rows' objects, with its SQL type. */
export type JsonColumns = Readonly<Record<string, string>>;

/**
 * JSON escapes a lone surrogate (a string cut inside an emoji) as `\udXXX`, which PostgreSQL refuses;
 * the text a parameter would have been sent as carries U+FFFD in its place, and so does this.
 */
function wellFormed(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? value.toWellFormed() : value;
}

/** The rows as JSON text PostgreSQL accepts. */
export function rowsJson(rows: readonly object[]): string {
  const json = JSON.stringify(rows);
  // Only a lone surrogate is written as an escape of this shape (or a backslash before "ud" in a
  // value, which the second pass leaves as it is).
  return json.includes('\\ud') ? JSON.stringify(rows, wellFormed) : json;
}

/**
 * `json_to_recordset($1) as <alias>(column type, …)`: each row's keys name its columns; a missing key
 * or a JSON null is NULL, and a jsonb column takes the value as it is.
 */
export function jsonRecordset(
  rows: readonly object[],
  columns: JsonColumns,
  alias = 'v',
): RawBuilder<unknown> {
  const list = Object.entries(columns)
    .map(([name, type]) => `${name} ${type}`)
    .join(', ');
  return sql`json_to_recordset(${rowsJson(rows)}::json) as ${sql.raw(alias)}(${sql.raw(list)})`;
}
