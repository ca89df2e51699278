// Runs: what started a batch of work (a webhook, a refresh, a backfill of N accounts, a scheduled
// re-enrichment, a confirm) — created once by whoever starts it, never per job; jobs carry its id.
import type { Kysely } from 'kysely';
import type { Database, OutcomeStatus, RunKind, RunRow } from './schema.ts';

export interface NewRun {
  kind: RunKind;
  label: string;
  /** Creating a run with a key already used returns that run (a retried sweep, a resumed backfill). */
  key?: string | undefined;
  actor?: string | undefined;
  counts?: Record<string, number> | undefined;
  at?: Date | undefined;
}

export interface Run {
  id: string;
  kind: RunKind;
  key: string | null;
  label: string;
  actor: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  counts: Record<string, number>;
}

/** A run id as the database holds it (a bigint); anything else names no run. */
export const isRunId = (id: string): boolean => /^\d{1,18}$/.test(id);

const runOf = (r: RunRow): Run => ({
  id: String(r.id),
  kind: r.kind,
  key: r.key,
  label: r.label,
  actor: r.actor,
  startedAt: new Date(r.started_at),
  finishedAt: r.finished_at === null ? null : new Date(r.finished_at),
  counts: r.counts,
});

export class Runs {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async create(run: NewRun): Promise<Run> {
    const values = {
      kind: run.kind,
      label: run.label,
      key: run.key ?? null,
      actor: run.actor ?? null,
      counts: JSON.stringify(run.counts ?? {}),
      ...(run.at ? { started_at: run.at } : {}),
    };
    if (run.key === undefined) {
      const row = await this.#db.insertInto('runs').values(values).returningAll().executeTakeFirstOrThrow();
      return runOf(row);
    }
    // A no-op update makes RETURNING hand back the run that already had this key.
    const row = await this.#db
      .insertInto('runs')
      .values(values)
      .onConflict((oc) => oc.column('key').doUpdateSet({ key: (eb) => eb.ref('excluded.key') }))
      .returningAll()
      .executeTakeFirstOrThrow();
    return runOf(row);
  }

  /** Marks the run finished with its final counts (replacing the counts it had). */
  async finish(id: string, counts: Record<string, number>, at = new Date()): Promise<void> {
    await this.#db
      .updateTable('runs')
      .set({ finished_at: at, counts: JSON.stringify(counts) })
      .where('id', '=', id)
      .execute();
  }

  /** The counts of a run still going (a backfill's accounts queued so far), replacing the ones it had. */
  async setCounts(id: string, counts: Record<string, number>): Promise<void> {
    await this.#db
      .updateTable('runs')
      .set({ counts: JSON.stringify(counts) })
      .where('id', '=', id)
      .where('finished_at', 'is', null)
      .execute();
  }

  async get(id: string): Promise<Run | null> {
    if (!isRunId(id)) return null;
    const row = await this.#db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? runOf(row) : null;
  }

  /**
   * Newest first, a page at a time: `next` is the id of the page's last run, to pass as `after` for the
   * page behind it (keyset on the `runs_recent` index, so a late page costs what the first does).
   */
  async list(options: RunListOptions = {}): Promise<RunPage> {
    const limit = Math.max(1, Math.min(500, Math.floor(options.limit ?? 50)));
    let q = this.#db.selectFrom('runs').selectAll();
    if (options.kind) q = q.where('kind', '=', options.kind);
    const after = options.after;
    if (after !== undefined) {
      if (!isRunId(after)) throw new RangeError('after: not a run id');
      // The cursor run's own (started_at, id), read in the same statement: no precision lost on the way.
      q = q.where(({ eb, refTuple, selectFrom }) =>
        eb(
          refTuple('started_at', 'id'),
          '<',
          selectFrom('runs as cursor')
            .select(['cursor.started_at', 'cursor.id'])
            .where('cursor.id', '=', after)
            .$asTuple('started_at', 'id'),
        ),
      );
    }
    const rows = await q
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    const runs = rows.slice(0, limit).map(runOf);
    return { runs, next: rows.length > limit ? (runs.at(-1)?.id ?? null) : null };
  }

  /** How the run's accounts stand: their latest outcomes that name this run, by status (one statement). */
  async outcomeCounts(id: string): Promise<Record<OutcomeStatus, number>> {
    const counts: Record<OutcomeStatus, number> = { enriched: 0, needs_review: 0, no_match: 0, error: 0 };
    if (!isRunId(id)) return counts;
    const rows = await this.#db
      .selectFrom('account_outcomes')
      .select((eb) => ['status', eb.fn.countAll<string>().as('n')])
      .where('run_id', '=', id)
      .groupBy('status')
      .execute();
    for (const { status, n } of rows) counts[status] = Number(n);
    return counts;
  }
  /** How many runs there are, of a kind or all (the runs list's total; runs are few beside accounts). */
  async count(kind?: RunKind): Promise<number> {
    let q = this.#db.selectFrom('runs').select((eb) => eb.fn.countAll<string>().as('n'));
    if (kind) q = q.where('kind', '=', kind);
    return Number((await q.executeTakeFirst())?.n ?? 0);
  }

  /** outcomeCounts for a page of runs at once (one grouped statement on the outcomes-by-run index). */
  async outcomeCountsOf(ids: readonly string[]): Promise<Map<string, Record<OutcomeStatus, number>>> {
    const found = new Map<string, Record<OutcomeStatus, number>>();
    const valid = ids.filter(isRunId);
    for (const id of valid) found.set(id, { enriched: 0, needs_review: 0, no_match: 0, error: 0 });
    if (valid.length === 0) return found;
    const rows = await this.#db
      .selectFrom('account_outcomes')
      .select((eb) => ['run_id', 'status', eb.fn.countAll<string>().as('n')])
      .where('run_id', 'in', valid)
      .groupBy(['run_id', 'status'])
      .execute();
    for (const { run_id, status, n } of rows) {
      const counts = run_id === null ? undefined : found.get(String(run_id));
      if (counts) counts[status] = Number(n);
    }
    return found;
  }

  /** The run's accounts whose latest outcome is an error, with the error, newest first. */
  async failures(
    id: string,
    limit = 20,
  ): Promise<{ crm: string; tenant: string; accountId: string; name: string | null; error: string }[]> {
    if (!isRunId(id)) return [];
    const rows = await this.#db
      .selectFrom('account_outcomes')
      .select(['crm', 'tenant', 'account_id', 'account_name', 'error', 'reason'])
      .where('run_id', '=', id)
      .where('status', '=', 'error')
      .orderBy('updated_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      crm: r.crm,
      tenant: r.tenant,
      accountId: r.account_id,
      name: r.account_name,
      error: r.error ?? r.reason ?? 'no reason recorded',
    }));
  }
}

export interface RunListOptions {
  kind?: RunKind | undefined;
  limit?: number | undefined;
  /** The `next` of the previous page. */
  after?: string | undefined;
}

export interface RunPage {
  runs: Run[];
  /** Pass as `after` for the next page; null on the last. */
  next: string | null;
}
