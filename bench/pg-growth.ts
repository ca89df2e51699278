// PostgreSQL's cost per account as a new tenant's first backfill grows, autovacuum off (issue 42's goal:
// flat within ± 20 % from 0 to 20,000 accounts). A fresh database, migrated (so analysed empty), every
// growing table with autovacuum off; the tenant grows through the store's own statements a chunk at a
// time (tenant-growth.ts: what a backfill chunk sends, without the CRMs or the provider); over a window
// of accounts starting at each point, the CPU of the database's backends (pg-cost.ts, /proc: the server
// must run on this machine) and the statements' time as the client saw it, per account.
// Alone: `node bench/pg-growth.ts [--accounts 20000] [--window 1000] [--chunk 100]`.
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import pg from 'pg';
import { Store } from '../src/store/store.ts';
import { benchArgs, benchCommand } from './args.ts';
import { backendCpu, backendCpuDelta } from './pg-cost.ts';
import { postgresUrl } from './review.ts';
import { tenantGrowth } from './tenant-growth.ts';

export const GOAL =
  'PostgreSQL CPU per account flat (± 20 %) from 0 to 20,000 accounts on a new tenant with autovacuum off';

/** The tables a backfill grows (or churns: notes_pending), left without autovacuum. */
const GROWING = [
  'account_outcomes',
  'field_writes',
  'notes_created',
  'notes_pending',
  'buyer_accounts',
  'outcome_counts',
];

export interface GrowthPoint {
  /** Accounts of the tenant when the window began. */
  at: number;
  accounts: number;
  /** CPU ms of the database's backends per account over the window. */
  cpuMsPerAccount: number;
  /** The statements' time per account, as the client measured it. */
  statementMsPerAccount: number;
  statementsPerAccount: number;
}

export interface PgGrowthResult {
  points: GrowthPoint[];
  /** CPU per account of the last window over the first's. */
  ratio: number;
  /** The goal and what was measured: `goal → measured`. */
  goal: string;
  met: boolean;
  loadBefore: number[];
  loadAfter: number[];
}

/** Grows a new tenant to `accounts` and measures a window of `window` accounts at each point. */
export async function pgGrowth(
  options: { serverUrl?: string; accounts?: number; window?: number; chunk?: number } = {},
): Promise<PgGrowthResult> {
  const serverUrl = options.serverUrl ?? postgresUrl();
  const total = options.accounts ?? 20_000;
  const window = options.window ?? 1000;
  const at = [0, 0.1, 0.25, 0.5, 1].map((f) => Math.max(0, Math.round(f * total) - (f === 1 ? window : 0)));
  const loadBefore = loadavg();
  const name = `bench_growth_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${admin.escapeIdentifier(name)}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const growth = tenantGrowth({
    url: url.toString(),
    tenant: 'bench-new-tenant',
    chunk: options.chunk ?? 100,
    onStatement: (_query, ms) => {
      statements++;
      statementMs += ms;
    },
  });
  let statements = 0;
  let statementMs = 0;
  try {
    const store = new Store({ url: url.toString() });
    await store.migrate();
    await store.close();
    const tables = new pg.Client({ connectionString: url.toString() });
    await tables.connect();
    for (const table of GROWING) await tables.query(`alter table ${table} set (autovacuum_enabled = false)`);
    await tables.end();
    const points: GrowthPoint[] = [];
    // The pool's two connections open before the first reading, so their CPU is counted from zero.
    await growth.grow(0);
    for (const start of at) {
      if (growth.accounts < start) await growth.grow(start - growth.accounts);
      const cpuBefore = await backendCpu(serverUrl, name);
      const [s0, ms0] = [statements, statementMs];
      await growth.grow(window);
      const { cpuMs } = backendCpuDelta(cpuBefore, await backendCpu(serverUrl, name));
      points.push({
        at: start,
        accounts: window,
        cpuMsPerAccount: round(cpuMs / window),
        statementMsPerAccount: round((statementMs - ms0) / window),
        statementsPerAccount: round((statements - s0) / window),
      });
    }
    const first = points[0]?.cpuMsPerAccount ?? 0;
    const last = points.at(-1)?.cpuMsPerAccount ?? 0;
    const ratio = first > 0 ? round(last / first) : 0;
    const met = ratio > 0 && ratio <= 1.2;
    const measured = `${first} → ${last} ms per account (${ratio}×, ${points.at(-1)?.at ?? 0}–${total})`;
    return { points, ratio, goal: `${GOAL} → ${measured}`, met, loadBefore, loadAfter: loadavg() };
  } finally {
    await growth.close();
    await admin.query(`drop database if exists ${admin.escapeIdentifier(name)} with (force)`);
    await admin.end();
  }
}

const round = (n: number) => Math.round(n * 100) / 100;

if (import.meta.main) {
  const { values } = benchArgs(
    benchCommand({
      usage: 'node bench/pg-growth.ts [options]',
      summary: `${GOAL}: a new tenant grown through the store's own statements, its PostgreSQL CPU per account measured as it grows.`,
      options: {
        accounts: {
          type: 'string',
          default: '20000',
          value: '<n>',
          describe: 'accounts the tenant grows to',
        },
        window: {
          type: 'string',
          default: '1000',
          value: '<n>',
          describe: 'accounts measured at each point',
        },
        chunk: { type: 'string', default: '100', value: '<n>', describe: 'accounts per backfill chunk' },
      },
    }),
  );
  const result = await pgGrowth({
    accounts: Number(values.accounts),
    window: Number(values.window),
    chunk: Number(values.chunk),
  });
  console.log('accounts at window start | PG CPU ms/account | statement ms/account | statements/account');
  for (const p of result.points)
    console.log(`${p.at} | ${p.cpuMsPerAccount} | ${p.statementMsPerAccount} | ${p.statementsPerAccount}`);
  console.log(
    `load ${result.loadBefore.map((l) => l.toFixed(1)).join('/')} → ${result.loadAfter.map((l) => l.toFixed(1)).join('/')}`,
  );
  console.log(`${result.goal}: ${result.met ? 'met' : 'not met'}`);
}
