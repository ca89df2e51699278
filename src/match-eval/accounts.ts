// The accounts file of `match-eval`: CSV (parsed by csv-parse), one account a row with the answer a
// person would give. Every problem is one line naming the line and the column, because the file is
// usually an export edited in a spreadsheet, and a spreadsheet loses leading zeros and adds columns.
import { CsvError, parse } from 'csv-parse/sync';

/** What the account should resolve to: one buyer, a person's review, or nothing. */
export type Expected = { kind: 'buyer'; buyerId: string } | { kind: 'review' } | { kind: 'nomatch' };

export interface AccountIds {
  nces?: string;
  ipeds?: string;
  census?: string;
  buyer?: string;
}

export interface EvalAccount {
  /** The file's line the row ends on (a quoted field may span lines). */
  line: number;
  /** The `id` column, or `line N`. */
  label: string;
  name: string | null;
  state: string | null;
  website: string | null;
  /** The account's address as the CRM holds it (optional columns). */
  city: string | null;
  county: string | null;
  /** Five digits, or ZIP+4. */
  zip: string | null;
  street: string | null;
  /** Mail domains of the account or its contacts, lower case, without `@` (column email_domain). */
  emailDomains: string[];
  ids: AccountIds;
  expected: Expected;
  note: string | null;
}

export class AccountsFileError extends Error {}

const REQUIRED = ['name', 'state', 'website', 'expected'] as const;
const ID_COLUMNS = { nces_id: 'nces', ipeds_id: 'ipeds', census_id: 'census', buyer_id: 'buyer' } as const;
const ADDRESS = ['city', 'county', 'zip', 'street', 'email_domain'] as const;
const OPTIONAL = ['id', 'note', ...Object.keys(ID_COLUMNS), ...ADDRESS];
const KNOWN = new Set<string>([...REQUIRED, ...OPTIONAL]);

type IdColumn = keyof typeof ID_COLUMNS;

const LEADING_ZERO_HINT = 'a spreadsheet may have dropped a leading zero: format the column as text';

/**
 * Each id column's form, with a hint for the usual damage. NCES: 7 digits for a district, 12 for a
 * public school, 8 letters and digits for a private school. IPEDS: the 6-digit UNITID. Census: the
 * 6-digit PID6 or the 14-digit GID. A buyer id is the provider's and only has to be there.
 */
function idProblem(column: IdColumn, value: string): string | null {
  switch (column) {
    case 'nces_id':
      if (/^(\d{7}|\d{12}|[A-Z0-9]{8})$/i.test(value)) return null;
      if (/^(\d{6}|\d{11})$/.test(value))
        return `"${value}" is one digit short of an NCES id; ${LEADING_ZERO_HINT}`;
      return `"${value}" is not an NCES id (7 digits for a district, 12 for a school, 8 characters for a private school)`;
    case 'ipeds_id':
      return /^\d{6}$/.test(value) ? null : `"${value}" is not an IPEDS id (6 digits)`;
    case 'census_id':
      if (/^(\d{6}|\d{14})$/.test(value)) return null;
      if (/^\d{13}$/.test(value))
        return `"${value}" is one digit short of a Census GID; ${LEADING_ZERO_HINT}`;
      return `"${value}" is not a Census id (6-digit PID6 or 14-digit GID)`;
    case 'buyer_id':
      return null;
  }
}

/** A zip as a spreadsheet keeps it: 5 digits or ZIP+4; a 4-digit one lost its leading zero. */
function parseZip(value: string, where: string): string {
  if (/^\d{5}(-\d{4})?$/.test(value)) return value;
  if (/^\d{4}(-\d{4})?$/.test(value))
    throw new AccountsFileError(`${where}: "${value}" is one digit short of a zip; ${LEADING_ZERO_HINT}`);
  throw new AccountsFileError(`${where}: "${value}" is not a zip (5 digits or ZIP+4)`);
}

/**
 * One or more mail domains, separated by spaces, commas or semicolons; an address or `@domain` gives
 * its domain (a CRM field often holds a contact's address rather than the bare domain).
 */
function parseEmailDomains(value: string, where: string): string[] {
  const domains: string[] = [];
  for (const part of value.split(/[\s,;]+/).filter(Boolean)) {
    const domain = part.slice(part.lastIndexOf('@') + 1).toLowerCase();
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain))
      throw new AccountsFileError(`${where}: "${part}" is not a mail domain (like austintexas.gov)`);
    if (!domains.includes(domain)) domains.push(domain);
  }
  return domains;
}

function csvProblem(err: CsvError, header: readonly string[] | undefined): string {
  const line = (err as { lines?: unknown }).lines;
  const at = typeof line === 'number' ? `line ${line}` : 'the file';
  const index = (err as { column?: unknown }).column;
  const column = typeof index === 'number' && header?.[index] ? `, column ${header[index]}` : '';
  const why =
    err.code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'a quoted field is never closed'
      : err.code === 'CSV_INVALID_CLOSING_QUOTE'
        ? 'a quote inside a quoted field must be doubled ("")'
        : err.message.replace(/\s*(at|on) line \d+.*$/i, '');
  return `${at}${column}: ${why}`;
}

function parseExpected(raw: string, where: string): Expected {
  const value = raw.trim();
  if (!value)
    throw new AccountsFileError(`${where}: empty; write the expected buyer's id, review or nomatch`);
  const word = value.toLowerCase().replace(/[\s_-]/g, '');
  if (word === 'review') return { kind: 'review' };
  if (word === 'nomatch') return { kind: 'nomatch' };
  if (/\s/.test(value))
    throw new AccountsFileError(`${where}: "${value}" is neither a buyer id nor review or nomatch`);
  return { kind: 'buyer', buyerId: value };
}

/** Reads the accounts file's text; throws AccountsFileError with one line naming the line and column. */
export function parseAccounts(text: string): EvalAccount[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true });
  } catch (err) {
    if (err instanceof CsvError) throw new AccountsFileError(csvProblem(err, undefined));
    throw err;
  }
  const [first, ...rows] = records;
  if (!first)
    throw new AccountsFileError(
      `the file is empty; its first line names the columns: ${REQUIRED.join(', ')}`,
    );
  const header = first.record.map((h) => h.trim().toLowerCase());
  for (const [i, h] of header.entries()) {
    if (!KNOWN.has(h))
      throw new AccountsFileError(
        `line ${first.info.lines}, column ${i + 1}: unknown column "${first.record[i]?.trim() ?? ''}" (columns: ${[...REQUIRED, ...OPTIONAL].join(', ')})`,
      );
    if (header.indexOf(h) !== i)
      throw new AccountsFileError(`line ${first.info.lines}, column ${i + 1}: "${h}" appears twice`);
  }
  const missing = REQUIRED.filter((c) => !header.includes(c));
  if (missing.length)
    throw new AccountsFileError(
      `line ${first.info.lines}: the header lacks ${missing.join(', ')} (required: ${REQUIRED.join(', ')})`,
    );
  if (!rows.length) throw new AccountsFileError('the file has a header and no accounts');

  return rows.map(({ record, info }) => {
    const line = info.lines;
    if (record.length !== header.length)
      throw new AccountsFileError(
        `line ${line}: ${record.length} field${record.length === 1 ? '' : 's'}, the header has ${header.length}`,
      );
    const cell = (column: string): string | null => {
      const value = record[header.indexOf(column)]?.trim();
      return value ? value : null;
    };
    const ids: AccountIds = {};
    for (const [column, key] of Object.entries(ID_COLUMNS) as [IdColumn, keyof AccountIds][]) {
      const value = cell(column);
      if (value === null) continue;
      const problem = idProblem(column, value);
      if (problem) throw new AccountsFileError(`line ${line}, column ${column}: ${problem}`);
      ids[key] = value;
    }
    const name = cell('name');
    const website = cell('website');
    if (!name && !website && !Object.keys(ids).length && !cell('email_domain'))
      throw new AccountsFileError(
        `line ${line}: the account has no name, website, email domain or id to match by`,
      );
    const label = cell('id');
    const zip = cell('zip');
    const mail = cell('email_domain');
    return {
      line,
      label: label ?? `line ${line}`,
      name,
      state: cell('state'),
      website,
      city: cell('city'),
      county: cell('county'),
      zip: zip === null ? null : parseZip(zip, `line ${line}, column zip`),
      street: cell('street'),
      emailDomains: mail === null ? [] : parseEmailDomains(mail, `line ${line}, column email_domain`),
      ids,
      expected: parseExpected(cell('expected') ?? '', `line ${line}, column expected`),
      note: cell('note'),
    };
  });
}
