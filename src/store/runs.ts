// Runs: what started a batch of work (a webhook, a refresh, a backfill of N accounts, a scheduled
// re-enrichment, a confirm) — created once by whoever starts it, never per job; jobs carry its id.
import type { Kysely } from 'kysely';
import type { Database, RunKind, RunRow } from './schema.ts';

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

  async get(id: string): Promise<Run | null> {
    if (!/^\d{1,19}$/.test(id)) return null;
    const row = await this.#db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? runOf(row) : null;
  }

  /** Newest first. */
  async list(options: { kind?: RunKind | undefined; limit?: number | undefined } = {}): Promise<Run[]> {
    let q = this.#db.selectFrom('runs').selectAll();
    if (options.kind) q = q.where('kind', '=', options.kind);
    const rows = await q
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(Math.max(1, Math.min(500, options.limit ?? 50)))
      .execute();
    return rows.map(runOf);
  }
}
