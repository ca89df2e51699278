// The past decisions `match-eval --decisions` applies as the tenant's learned rules before it evaluates
// (docs/matching.md, "Learning from decisions"): a person's confirm or reject of a buyer for an account
// typed a given way. CSV (a header line naming the columns) or JSON (an array of objects with the same
// keys), told apart by the first character. Every problem is one line naming the line (CSV) or the
// entry (JSON) and the field, as the accounts file's are.
import { CsvError, parse } from 'csv-parse/sync';
import { z } from 'zod';
import { AccountsFileError } from './accounts.ts';

export interface PastDecision {
  /** Where it is in the file: `line N` (CSV) or `entry N` (JSON, 1-based). */
  where: string;
  name: string;
  state: string | null;
  website: string | null;
  buyerId: string;
  buyerName: string | null;
  verdict: 'confirm' | 'reject';
}

const optionalText = z
  .string()
  .trim()
  .max(500)
  .nullish()
  .transform((v) => v || null);

const Row = z.strictObject({
  name: z.string().trim().min(1, 'is empty; write the account name as the person saw it').max(500),
  state: optionalText,
  website: optionalText,
  buyer_id: z
    .string()
    .trim()
    .min(1, "is empty; write the buyer's id")
    .regex(/^\S+$/, 'must be one buyer id, without spaces'),
  buyer_name: optionalText,
  verdict: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['confirm', 'reject'], { error: 'must be confirm or reject' })),
});

export const DECISION_COLUMNS = ['name', 'state', 'website', 'buyer_id', 'buyer_name', 'verdict'] as const;
const REQUIRED = ['name', 'buyer_id', 'verdict'];

function fromRow(raw: unknown, where: string): PastDecision {
  const parsed = Row.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') ?? '';
    const message =
      issue?.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')} (fields: ${DECISION_COLUMNS.join(', ')})`
        : issue?.code === 'invalid_type' && issue.input === undefined
          ? `${field} is missing (required: ${REQUIRED.join(', ')})`
          : `${field} ${issue?.message ?? 'is not valid'}`;
    throw new AccountsFileError(`${where}: ${message}`);
  }
  const r = parsed.data;
  return {
    where,
    name: r.name,
    state: r.state,
    website: r.website,
    buyerId: r.buyer_id,
    buyerName: r.buyer_name,
    verdict: r.verdict,
  };
}

function fromJson(text: string): PastDecision[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new AccountsFileError(`is not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(data))
    throw new AccountsFileError('must be a JSON array of decisions ({ "name", "buyer_id", "verdict" }, …)');
  return data.map((entry, i) => fromRow(entry, `entry ${i + 1}`));
}

function fromCsv(text: string): PastDecision[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true });
  } catch (err) {
    if (err instanceof CsvError) throw new AccountsFileError(`is not valid CSV: ${err.message}`);
    throw err;
  }
  const [first, ...rows] = records;
  if (!first)
    throw new AccountsFileError(`is empty; its first line names the columns: ${REQUIRED.join(', ')}`);
  const header = first.record.map((h) => h.trim().toLowerCase());
  const unknown = header.filter((h) => !(DECISION_COLUMNS as readonly string[]).includes(h));
  if (unknown.length)
    throw new AccountsFileError(
      `line ${first.info.lines}: unknown column ${unknown.join(', ')} (columns: ${DECISION_COLUMNS.join(', ')})`,
    );
  const missing = REQUIRED.filter((c) => !header.includes(c));
  if (missing.length)
    throw new AccountsFileError(`line ${first.info.lines}: the header lacks ${missing.join(', ')}`);
  return rows.map(({ record, info }) => {
    const where = `line ${info.lines}`;
    if (record.length !== header.length)
      throw new AccountsFileError(`${where}: ${record.length} fields, the header has ${header.length}`);
    // Empty cells are absent fields: the schema then names a missing required one.
    const entries = header.map((h, i) => [h, record[i]?.trim() ?? ''] as const).filter(([, v]) => v !== '');
    return fromRow(Object.fromEntries(entries), where);
  });
}

/** Reads the decisions file's text; throws AccountsFileError with one line saying what to fix. */
export function parseDecisions(text: string): PastDecision[] {
  const decisions = /^\s*[[{]/.test(text.replace(/^\uFEFF/, '')) ? fromJson(text) : fromCsv(text);
  if (!decisions.length) throw new AccountsFileError('holds no decisions');
  return decisions;
}
