// What the store costs PostgreSQL over a backfill's window: the statements the workers sent (counted in
// each worker process at node-postgres' Client#query, so BEGIN/COMMIT count too; pg_stat_statements is
// not loaded on every server) and the CPU time of the server's backends serving the bench's database
// (user + system time from /proc/<pid>/stat of every backend pg_stat_activity lists for it; the server
// must run on this machine). A backend that exits in the window takes its CPU with it: the workers'
// pools keep theirs open while busy, and the count of backends is reported.
import { readFileSync } from 'node:fs';
import pg from 'pg';

/** Linux's clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat's times. */
const TICKS_PER_SECOND = 100;

export interface BackendCpu {
  /** CPU ms by backend pid. */
  byPid: Map<number, number>;
  /** Backends whose /proc entry could not be read (a server elsewhere). */
  unreadable: number;
}

function cpuMsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** The CPU time, so far, of every backend connected to `database` (the bench's own connection apart). */
export async function backendCpu(adminUrl: string, database: string): Promise<BackendCpu> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [database],
    );
    const byPid = new Map<number, number>();
    let unreadable = 0;
    for (const { pid } of rows) {
      const ms = cpuMsOf(pid);
      if (ms === null) unreadable++;
      else byPid.set(pid, ms);
    }
    return { byPid, unreadable };
  } finally {
    await client.end();
  }
}

/** CPU ms the backends spent between two readings (a backend new at the end counts from zero). */
export function backendCpuDelta(start: BackendCpu, end: BackendCpu): { cpuMs: number; backends: number } {
  let cpuMs = 0;
  for (const [pid, ms] of end.byPid) cpuMs += ms - (start.byPid.get(pid) ?? 0);
  return { cpuMs: Math.round(cpuMs), backends: end.byPid.size };
}

let counted = 0;
const byKind = new Map<string, number>();
/** A statement's kind: its verb and first table, e.g. `insert into account_outcomes`. */
function kindOf(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim().toLowerCase();
  const verb =
    /^(with|select|insert|update|delete|begin|commit|rollback|analyze)/.exec(t)?.[1] ?? t.slice(0, 12);
  const table = /(?:from|into|update) "?([a-z_]+)"?/.exec(t)?.[1] ?? '';
  return `${verb} ${table}`.trim();
}
/**
 * Counts every statement this process sends through node-postgres (a worker process's store). Called
 * once in a bench worker; `statementsSent()` reads the count.
 */
export function countStatements(): void {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    counted++;
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text;
    const kind = kindOf(text ?? '');
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    return query.apply(this, args);
  };
}
export const statementsSent = () => counted;
/** The statements sent so far by kind (bench/README.md: where a run's statements go). */
export const statementsByKind = () => Object.fromEntries(byKind);
