// A new tenant's first backfill on a server whose statistics never catch up by themselves (autovacuum
// off for the tables): the lookups its outcome statements and its settlements make must stay lookups —
// an index probe per account — while the tenant grows from nothing to 20,000 accounts (issue 42). Before,
// the "others on this buyer" count read the tenant's primary-key range per account recorded (planned on
// the empty table's statistics) and a note's "already recorded?" scanned every note.
//
// The tenant grows through the store's own statements (bench/tenant-growth.ts, the order a chunk makes
// them); at 0, 2,000 and 20,000 accounts the next chunk's statements are captured and planned again with
// EXPLAIN (FORMAT JSON), their parameters as sent.
import type { CompiledQuery } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { type TenantGrowth, tenantGrowth } from '../../bench/tenant-growth.ts';
import { Store } from '../../src/store/store.ts';
import { freshPostgresDatabase, itWithPostgres } from '../helpers/databases.ts';

/** The tables a backfill grows, by an account or more each (notes_pending only holds notes in flight). */
const GROWING = ['account_outcomes', 'field_writes', 'notes_created', 'buyer_accounts'];

/** The statements of an outcome's record and of a settlement, by what they start with. */
const KINDS: [string, RegExp][] = [
  ['outcomes recorded', /^with "up" as \(insert into "account_outcomes"|^insert into "account_outcomes"/],
  ['others on the buyer counted', /^select k\.account_id|^select "a"\."account_id", count/],
  ['field writes recorded (a kept value: already recorded?)', /^insert into "field_writes"/],
  ['field writes settled', /^update field_writes/],
  ['notes settled (already recorded?)', /^with s as/],
];
const kindOf = (text: string) => KINDS.find(([, re]) => re.test(text.trim()))?.[0];

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/**
 * What is wrong with a plan: a sequential scan of a growing table that holds more than a few rows, or
 * an index scan bounded by the tenant alone (its whole range read, the account filtered afterwards).
 */
function defectsOf(node: PlanNode, rows: Map<string, number>, out: string[] = []): string[] {
  const table = node['Relation Name'];
  if (table && GROWING.includes(table)) {
    if (node['Node Type'] === 'Seq Scan' && (rows.get(table) ?? 0) > 500)
      out.push(`Seq Scan on ${table} (${rows.get(table)} rows)`);
    const cond = node['Index Cond'];
    if (cond !== undefined && !/account_id|buyer_id|note_id|field|\bid\b/.test(cond))
      out.push(`${node['Node Type']} of ${node['Index Name']} over the tenant's range: ${cond}`);
  }
  if (node['Node Type'] === 'Bitmap Heap Scan' && table && GROWING.includes(table)) {
    for (const child of node.Plans ?? []) {
      const cond = child['Index Cond'] ?? '';
      if (!/account_id|buyer_id|note_id|field|\bid\b/.test(cond))
        out.push(`Bitmap scan of ${child['Index Name']} on ${table} over the tenant's range: ${cond}`);
    }
  }
  for (const child of node.Plans ?? []) defectsOf(child, rows, out);
  return out;
}

let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let client: pg.Client;
let growth: TenantGrowth;
let capture: CompiledQuery[] | undefined;

beforeAll(async () => {
  database = await freshPostgresDatabase({ migrated: false });
  if (!database) return;
  const store = new Store({ url: database.url });
  // Migrating analyses the tables, empty: the statistics a new install's first backfill starts from.
  await store.migrate();
  await store.close();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  for (const table of [...GROWING, 'notes_pending', 'outcome_counts'])
    await client.query(`alter table ${table} set (autovacuum_enabled = false)`);
  growth = tenantGrowth({
    url: database.url,
    tenant: 'new-tenant',
    chunk: 250,
    onStatement: (query) => capture?.push(query),
  });
});
afterAll(async () => {
  await growth?.close();
  await client?.end();
  await database?.drop();
});

/** The defects of each outcome and settlement statement of the next chunk, by kind. */
async function planDefects(): Promise<Record<string, string[]>> {
  capture = [];
  await growth.grow(100);
  const statements = capture;
  capture = undefined;
  const { rows: sizes } = await client.query<{ relname: string; n: string }>(
    `select relname, n_live_tup as n from pg_stat_user_tables`,
  );
  const rows = new Map(sizes.map((s) => [s.relname, Number(s.n)]));
  const defects: Record<string, string[]> = {};
  for (const statement of statements) {
    const kind = kindOf(statement.sql);
    if (!kind) continue;
    const { rows: plan } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `explain (format json) ${statement.sql}`,
      statement.parameters as unknown[],
    );
    const root = plan[0]?.['QUERY PLAN'][0].Plan;
    defects[kind] = [...(defects[kind] ?? []), ...(root ? defectsOf(root, rows) : ['no plan'])];
  }
  return defects;
}

describe("a new tenant's outcome and settlement lookups as it grows, statistics never refreshed by autovacuum", () => {
  itWithPostgres(
    'stay an index probe per account at 0, 2,000 and 20,000 accounts',
    async () => {
      // Every kind, each without a defect (the count of others has run in every chunk: some of its
      // accounts are alone on their buyer, which the store counts again in a statement of its own).
      const none = Object.fromEntries(KINDS.map(([kind]) => [kind, []]));
      for (const at of [0, 2_000, 20_000]) {
        if (growth.accounts < at) await growth.grow(at - growth.accounts);
        expect({ at, ...(await planDefects()) }).toEqual({ at, ...none });
      }
    },
    300_000,
  );
});
