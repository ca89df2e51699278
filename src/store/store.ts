// The system of record as the service holds it: the database (opened lazily, connecting nothing until
// first used), its migrations, and the repositories once the schema is current.
//
// Migrations run only when asked (`setup`, `migrate`), never at import time. The one exception is the
// embedded PGlite: it serves this process alone, so `start`, `enrich`, the demo and the tests migrate it
// when they first use it. A shared PostgreSQL (DATABASE_URL) is never migrated behind an operator's
// back: the service refuses to use it while a migration is pending.
import { Migrator, sql } from 'kysely';
import { withTimeout } from '../shared/deadline.ts';
import { IntegrationError } from '../shared/errors.ts';
import { DashboardQueries } from './dashboard.ts';
import { type DatabaseHandle, type DatabaseSettings, openDatabase } from './db.ts';
import { Decisions } from './decisions.ts';
import { DigestStates } from './digest-state.ts';
import { FieldSummary } from './field-summary.ts';
import { FollowUps } from './follow-ups.ts';
import { LearnedDecisions } from './learned-decisions.ts';
import { MappingVersions } from './mapping-versions.ts';
import { MatchedAccounts } from './matched.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { Outcomes } from './outcomes.ts';
import { ReviewRecords } from './review.ts';
import { Runs } from './runs.ts';
import { analyzeGrowingTables } from './statistics.ts';
import { TenantRows } from './tenants.ts';
import { UndoRecords } from './undo.ts';
import { WriteHistory } from './write-history.ts';

export class MigrationsPending extends IntegrationError {
  readonly pending: string[];
  constructor(where: string, pending: string[]) {
    super(
      `the database (${where}) has ${pending.length} pending migration${pending.length === 1 ? '' : 's'} (${pending.join(', ')}): run \`buyer-intel-sync migrate\``,
      { permanent: true },
    );
    this.pending = pending;
  }
}

/** An error in one line; a refused connection to `localhost` is an AggregateError with no message. */
export function describeError(err: unknown): string {
  if (err instanceof AggregateError && !err.message)
    return [...new Set(err.errors.map((e: unknown) => describeError(e)))].join('; ');
  if (err instanceof Error) return err.message || (err as NodeJS.ErrnoException).code || err.name;
  return String(err);
}

export interface Repositories {
  outcomes: Outcomes;
  decisions: Decisions;
  /** What a person's confirms and rejects teach the resolver (src/resolve/learned.ts). */
  learned: LearnedDecisions;
  runs: Runs;
  review: ReviewRecords;
  /** Every field write, kept value and note (src/store/write-history.ts). */
  writes: WriteHistory;
  /** What an undo takes back and its progress (src/store/undo.ts). */
  undo: UndoRecords;
  /** CRM connections added at run time, encrypted (src/tenants/store.ts). */
  tenants: TenantRows;
  /** Each digest's watermark and delivery state (src/digest/). */
  digests: DigestStates;
  /** Each matched account's buyer, from the outcomes (rebuilds Redis' index: src/write/ledgers.ts). */
  matched: MatchedAccounts;
  /** Follow-up tasks and the provider row statuses they set (src/follow-ups/). */
  followUps: FollowUps;
  /** The mapping's versions saved from the admin console (src/mapping-versions/). */
  mappings: MappingVersions;
  /** The console dashboard's counts and ages, cheap at any size (src/store/dashboard.ts). */
  dashboard: DashboardQueries;
  /** Per CRM field of a tenant, our last write and the accounts holding ours (the mapping page). */
  fields: FieldSummary;
}

export class Store {
  readonly #handle: DatabaseHandle;
  readonly #migrator: Migrator;
  #ready: Promise<Repositories> | undefined;

  constructor(settings: DatabaseSettings, options: { onError?: (err: Error) => void } = {}) {
    this.#handle = openDatabase(settings, options.onError);
    this.#migrator = new Migrator({
      db: this.#handle.db,
      provider: { getMigrations: async () => MIGRATIONS },
      // Named, not found through search_path: Kysely looks for its table by schema, so another schema
      // of the same database holding a kysely_migration table (another app, a parallel test) would
      // otherwise pass for ours.
      migrationTableSchema: ('schema' in settings ? settings.schema : undefined) ?? 'public',
    });
  }

  get embedded(): boolean {
    return this.#handle.embedded;
  }

  /** Where the database is (no password), for messages. */
  get where(): string {
    return this.#handle.where;
  }

  /** The repositories, once the schema is current (see the top of this file). */
  open(): Promise<Repositories> {
    this.#ready ??= (async () => {
      if (this.#handle.embedded) await this.migrate();
      else {
        const pending = await this.pending().catch((err: unknown) => {
          const reason = describeError(err);
          throw new IntegrationError(`could not reach the database at ${this.#handle.where}: ${reason}`, {
            permanent: false,
            cause: err,
          });
        });
        if (pending.length) throw new MigrationsPending(this.#handle.where, pending);
      }
      const db = this.#handle.db;
      return {
        outcomes: new Outcomes(db),
        decisions: new Decisions(db),
        learned: new LearnedDecisions(db),
        runs: new Runs(db),
        review: new ReviewRecords(db),
        writes: new WriteHistory(db),
        undo: new UndoRecords(db),
        tenants: new TenantRows(db),
        digests: new DigestStates(db),
        matched: new MatchedAccounts(db),
        followUps: new FollowUps(db),
        mappings: new MappingVersions(db),
        dashboard: new DashboardQueries(db),
        fields: new FieldSummary(db),
      };
    })();
    // A failed check (database down, migrations pending) is asked again next time.
    this.#ready.catch(() => {
      this.#ready = undefined;
    });
    return this.#ready;
  }

  /**
   * Whether the database answers a `select 1` within `timeoutMs`: the readiness checks' question. A
   * process that cannot reach its system of record may still be alive, but it is not ready.
   */
  async answers(timeoutMs = 2_000): Promise<boolean> {
    return withTimeout(sql`select 1`.execute(this.#handle.db), timeoutMs, 'the database').then(
      () => true,
      () => false,
    );
  }

  /** Names of the migrations not yet applied. */
  async pending(): Promise<string[]> {
    const all = await this.#migrator.getMigrations();
    return all.filter((m) => !m.executedAt).map((m) => m.name);
  }

  /** Applies every pending migration (under Kysely's migration lock); returns the names applied. */
  async migrate(): Promise<string[]> {
    const { error, results } = await this.#migrator.migrateToLatest();
    if (error) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName;
      const reason = describeError(error);
      throw new IntegrationError(
        `${failed ? `migration ${failed}` : 'migrating'} failed on ${this.#handle.where}: ${reason}`,
        { permanent: true, cause: error },
      );
    }
    const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (applied.length) await this.analyze();
    return applied;
  }

  /**
   * Table statistics for the tables a run grows, now. Without them (autovacuum off, or a table that
   * grew faster than autovacuum analyses it) PostgreSQL plans a tenant's duplicates query as a scan of
   * every account: 27 ms instead of 0.14 ms at 20,000 accounts (issue 31). ANALYZE samples a bounded
   * number of rows, so it costs about the same at any size. Run after migrations and at a run's start;
   * a tenant that grows far past its statistics during a run gets them again (statistics.ts).
   */
  async analyze(): Promise<void> {
    await analyzeGrowingTables(this.#handle.db);
  }

  async close(): Promise<void> {
    await this.#handle.close();
  }
}
