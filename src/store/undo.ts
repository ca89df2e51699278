// Size: one repository for undo — what a scope selects (last change, accounts, fields, notes), the undo
// run and its accounts, a batch's record in one transaction — each a statement or two.
// What an undo reads and records in the store (src/undo/ decides): which writes it takes back — a run's,
// a job's, or an account's last change — per account and field the value before and the value we left,
// the notes we created and whether one was removed since; the undo run itself, one open run per target
// (a rerun resumes it), its accounts `started` and `done`; and, in one transaction per batch, its field
// writes, its note removals, its done accounts and its counts.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { AT_ONCE, retrying } from '../shared/retry.ts';
import type { FieldWriteEntry } from '../write/journal.ts';
import { insertFieldWrites } from './field-rows.ts';
import { type Run, Runs } from './runs.ts';
import {
  type Cohort,
  type Database,
  type FieldKind,
  OUTCOME_STATUSES,
  type OutcomeStatus,
} from './schema.ts';

/** The writes an undo takes back. */
export type UndoScope =
  | { kind: 'run'; runId: string }
  | { kind: 'job'; jobId: string }
  /**
   * One account's change: its consecutive writes and notes of one run, job and trigger (ids in
   * (afterId, upToId]), as `history` groups them.
   */
  | {
      kind: 'change';
      crm: string;
      tenant: string;
      accountId: string;
      runId: string | null;
      jobId: string | null;
      trigger: string | null;
      afterId: string | null;
      upToId: string;
    }
  /**
   * Everything we ever wrote on one account (ids up to upToId): what a rejection or a move to another
   * buyer takes back, so the CRM shows none of ours from the buyer a person turned down.
   */
  | { kind: 'all'; crm: string; tenant: string; accountId: string; upToId: string };

/** The undo run's target: one open run per target (src/store/migrations/0007_undo.ts). */
export function scopeTarget(scope: UndoScope): string {
  switch (scope.kind) {
    case 'run':
      return `run:${scope.runId}`;
    case 'job':
      return `job:${scope.jobId}`;
    case 'change':
      return `change:${scope.crm}:${scope.tenant}:${scope.accountId}:${scope.upToId}`;
    case 'all':
      return `all:${scope.crm}:${scope.tenant}:${scope.accountId}:${scope.upToId}`;
  }
}

export interface UndoAccount {
  crm: string;
  tenant: string;
  accountId: string;
}

/**
 * The account whose change an undo run's target takes back (the inverse of `scopeTarget`), or null for
 * a run's or a job's undo. CRM, tenant and account ids hold no `:` (the API checks them).
 */
export function changeAccountOf(target: string): UndoAccount | null {
  const [kind, crm, tenant, accountId] = target.split(':');
  return (kind === 'change' || kind === 'all') && crm && tenant && accountId
    ? { crm, tenant, accountId }
    : null;
}

/** One field the scope wrote on one account. */
/**
 * What an undo put back on an account's match fields, for its outcome in the review queue: no status
 * (the account had none before) removes the outcome — the history keeps what it was.
 */
export interface OutcomeAfterUndo extends UndoAccount {
  status: string | null;
  buyerId: string | null;
  buyerName: string | null;
  confidence: string | null;
  reason: string | null;
}

const isStatus = (s: string | null): s is OutcomeStatus =>
  s !== null && (OUTCOME_STATUSES as readonly string[]).includes(s);

export interface UndoField extends UndoAccount {
  field: string;
  kind: FieldKind;
  attribute: string | null;
  policy: string | null;
  buyerId: string | null;
  /**
   * The value before the scope's first write of the field: as recorded, or — for a write whose value
   * before was not known (a failure mark) — the value we had written before it, else empty.
   */
  before: string | null;
  /** The value the scope's last write of the field left. */
  wrote: string | null;
  /**
   * What our writes after the scope's left in the field (a confirm's re-enrichment, a later run): a
   * value among these is ours, never a person's edit.
   */
  later: (string | null)[];
}

export interface UndoNote extends UndoAccount {
  noteId: string;
  dedupeKey: string;
  title: string | null;
  buyerId: string | null;
  /** An undo already removed it (or found it gone). */
  removed: boolean;
}

export interface NoteRemovalEntry extends UndoAccount {
  runId: string;
  buyerId: string | null;
  noteId: string;
  dedupeKey: string | null;
  title: string | null;
  outcome: 'removed' | 'already_gone';
  at: Date;
}

/** Decisions whose recorded value before is not known (see src/enrich-job/final-failure.ts's mark). */
const OLD_UNKNOWN = ['failure-mark'];

const isUniqueViolation = (err: unknown) => (err as { code?: unknown } | null)?.code === '23505';

const accountKey = (a: UndoAccount) => `${a.crm}\u0000${a.tenant}\u0000${a.accountId}`;

function scopeWhere(scope: UndoScope): RawBuilder<unknown> {
  switch (scope.kind) {
    case 'run':
      return sql`run_id = ${scope.runId}::bigint`;
    case 'job':
      return sql`job_id = ${scope.jobId}::text`;
    case 'change':
      return sql`crm = ${scope.crm} and tenant = ${scope.tenant} and account_id = ${scope.accountId}
        and run_id is not distinct from ${scope.runId}::bigint
        and job_id is not distinct from ${scope.jobId}::text
        and trigger is not distinct from ${scope.trigger}::text
        and id > ${scope.afterId ?? '0'}::bigint and id <= ${scope.upToId}::bigint`;
    case 'all':
      return sql`crm = ${scope.crm} and tenant = ${scope.tenant} and account_id = ${scope.accountId}
        and id <= ${scope.upToId}::bigint`;
  }
}

interface ChangeRow {
  id: string | number;
  tenant: string;
  run_id: string | number | null;
  job_id: string | null;
  trigger: string | null;
}

const text = (v: string | number | null) => (v === null ? null : String(v));

export class UndoRecords {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /**
   * The account's last change that no undo made (its writes and notes of one run, job and trigger),
   * or null when we never wrote it. Without a tenant: the account of that id most recently written.
   */
  async lastChange(account: {
    crm: string;
    tenant?: string | undefined;
    accountId: string;
  }): Promise<Extract<UndoScope, { kind: 'change' }> | null> {
    const events = (tenant: string | undefined) => sql`(
      select id, tenant, run_id, job_id, trigger from field_writes
      where crm = ${account.crm} and account_id = ${account.accountId} and crm_result = 'ok'
        ${tenant === undefined ? sql`` : sql`and tenant = ${tenant}`}
      union all
      select id, tenant, run_id, job_id, trigger from notes_created
      where crm = ${account.crm} and account_id = ${account.accountId}
        ${tenant === undefined ? sql`` : sql`and tenant = ${tenant}`}
    ) as e left join runs r on r.id = e.run_id`;
    const top = (
      await sql<ChangeRow>`select e.* from ${events(account.tenant)}
        where r.kind is distinct from 'undo' order by e.id desc limit 1`.execute(this.#db)
    ).rows[0];
    if (!top) return null;
    const runId = text(top.run_id);
    const upToId = String(top.id);
    // The change begins after the newest earlier event of another run, job or trigger (undos aside).
    const before = (
      await sql<{ id: string | number | null }>`select max(e.id) as id from ${events(top.tenant)}
        where r.kind is distinct from 'undo' and e.id < ${upToId}::bigint
          and not (e.run_id is not distinct from ${runId}::bigint
            and e.job_id is not distinct from ${top.job_id}::text
            and e.trigger is not distinct from ${top.trigger}::text)`.execute(this.#db)
    ).rows[0];
    return {
      kind: 'change',
      crm: account.crm,
      tenant: top.tenant,
      accountId: account.accountId,
      runId,
      jobId: top.job_id,
      trigger: top.trigger,
      afterId: text(before?.id ?? null),
      upToId,
    };
  }

  /** The newest history id of the account (its fields and notes), or null when we never wrote it. */
  async lastId(account: UndoAccount): Promise<string | null> {
    const { rows } = await sql<{ id: string | number | null }>`select greatest(
        (select max(id) from field_writes where crm = ${account.crm} and tenant = ${account.tenant}
          and account_id = ${account.accountId}),
        (select max(id) from notes_created where crm = ${account.crm} and tenant = ${account.tenant}
          and account_id = ${account.accountId})) as id`.execute(this.#db);
    const id = rows[0]?.id;
    return id === null || id === undefined ? null : String(id);
  }

  /**
   * The account's last row written by anything but `jobId` and undo runs (one statement): where a job
   * that moved the account to another buyer takes back the old buyer's writes up to — the same id on
   * the job's retry, whatever the job and its take-back recorded since.
   */
  async lastIdBefore(account: UndoAccount, jobId: string): Promise<string | null> {
    const { rows } = await sql<{ id: string | number | null }>`select greatest(
        (select max(id) from field_writes f where crm = ${account.crm} and tenant = ${account.tenant}
          and account_id = ${account.accountId} and job_id is distinct from ${jobId}
          and not exists (select 1 from runs r where r.id = f.run_id and r.kind = 'undo')),
        (select max(id) from notes_created n where crm = ${account.crm} and tenant = ${account.tenant}
          and account_id = ${account.accountId} and job_id is distinct from ${jobId})) as id`.execute(
      this.#db,
    );
    const id = rows[0]?.id;
    return id === null || id === undefined ? null : String(id);
  }

  /** Every account the scope wrote a field of or created a note on, in a stable order (one statement). */
  async accountsOf(scope: UndoScope): Promise<UndoAccount[]> {
    const where = scopeWhere(scope);
    const { rows } = await sql<{ crm: string; tenant: string; account_id: string }>`
      select crm, tenant, account_id from field_writes where ${where} and crm_result = 'ok'
      union
      select crm, tenant, account_id from notes_created where ${where}
      order by crm, tenant, account_id`.execute(this.#db);
    return rows.map((r) => ({ crm: r.crm, tenant: r.tenant, accountId: r.account_id }));
  }

  /** The fields the scope wrote on these accounts of one tenant (one statement). */
  async fieldsOf(scope: UndoScope, crm: string, tenant: string, accountIds: readonly string[]) {
    if (!accountIds.length) return [];
    const { rows } = await sql<{
      account_id: string;
      field: string;
      kind: FieldKind;
      attribute: string | null;
      policy: string | null;
      buyer_id: string | null;
      decision: string;
      old_value: string | null;
      wrote: string | null;
      prior: string | null;
      later: (string | null)[] | null;
    }>`
      with g as (
        select account_id, field, min(id) as first_id, max(id) as last_id from field_writes
        where ${scopeWhere(scope)} and crm_result = 'ok'
          and crm = ${crm} and tenant = ${tenant} and account_id = any(${[...accountIds]}::text[])
        group by account_id, field
      )
      select g.account_id, g.field, f.kind, f.attribute, f.policy, l.buyer_id, f.decision, f.old_value,
        l.new_value as wrote,
        (select p.new_value from field_writes p
         where p.crm = ${crm} and p.tenant = ${tenant} and p.account_id = g.account_id
           and p.field = g.field and p.crm_result = 'ok' and p.id < g.first_id
         order by p.id desc limit 1) as prior,
        array(select distinct q.new_value from field_writes q
         where q.crm = ${crm} and q.tenant = ${tenant} and q.account_id = g.account_id
           and q.field = g.field and q.crm_result = 'ok' and q.id > g.last_id) as later
      from g join field_writes f on f.id = g.first_id join field_writes l on l.id = g.last_id
      order by g.account_id, g.field`.execute(this.#db);
    return rows.map(
      (r): UndoField => ({
        crm,
        tenant,
        accountId: r.account_id,
        field: r.field,
        kind: r.kind,
        attribute: r.attribute,
        policy: r.policy,
        buyerId: r.buyer_id,
        before: OLD_UNKNOWN.includes(r.decision) ? r.prior : r.old_value,
        wrote: r.wrote,
        later: r.later ?? [],
      }),
    );
  }

  /** The notes the scope created on these accounts of one tenant, oldest first (one statement). */
  async notesOf(
    scope: UndoScope,
    crm: string,
    tenant: string,
    accountIds: readonly string[],
  ): Promise<UndoNote[]> {
    if (!accountIds.length) return [];
    const { rows } = await sql<{
      account_id: string;
      note_id: string;
      dedupe_key: string;
      title: string | null;
      buyer_id: string | null;
      removed: boolean;
    }>`
      select n.account_id, n.note_id, n.dedupe_key, n.title, n.buyer_id,
        exists (select 1 from notes_removed r
                where r.crm = n.crm and r.tenant = n.tenant and r.note_id = n.note_id) as removed
      from notes_created n
      where ${scopeWhere(scope)} and n.crm = ${crm} and n.tenant = ${tenant}
        and n.account_id = any(${[...accountIds]}::text[])
      order by n.id`.execute(this.#db);
    return rows.map((r) => ({
      crm,
      tenant,
      accountId: r.account_id,
      noteId: r.note_id,
      dedupeKey: r.dedupe_key,
      title: r.title,
      buyerId: r.buyer_id,
      removed: r.removed,
    }));
  }

  /**
   * The open undo run of the target (an interrupted one: resumed), or a new one. One open run per
   * target, whoever asks at the same moment.
   */
  async openRun(
    target: string,
    run: { label: string; actor?: string | undefined },
  ): Promise<{ run: Run; resumed: boolean }> {
    return retrying(
      () =>
        this.#db.transaction().execute(async (trx) => {
          const open = await trx
            .selectFrom('undo_runs')
            .select('run_id')
            .where('target', '=', target)
            .where('finished', '=', false)
            .executeTakeFirst();
          const runs = new Runs(trx);
          if (open) {
            const found = await runs.get(String(open.run_id));
            if (found) return { run: found, resumed: true };
          }
          const created = await runs.create({ kind: 'undo', label: run.label, actor: run.actor });
          await trx.insertInto('undo_runs').values({ run_id: created.id, target }).execute();
          return { run: created, resumed: false };
        }),
      // Another caller opened one between our read and our insert (a unique violation): read it, at once.
      { tries: 3, backoff: AT_ONCE, classify: (err) => ({ permanent: !isUniqueViolation(err) }) },
    );
  }

  /**
   * Claims the undo run for `holder` for `ttlMs` (again: renews it). Refused while another holder's
   * claim runs; a claim that lapsed (its runner was killed) is taken over. One statement, so two
   * processes never both hold it.
   */
  async claim(
    runId: string,
    holder: string,
    ttlMs: number,
    /** A holder known to be dead (its process is gone): its claim is taken over at once. */
    takeOverFrom?: string,
  ): Promise<{ ok: true; finished: boolean } | { ok: false; holder: string; until: Date }> {
    const { rows } = await sql<{ finished: boolean }>`
      update undo_runs set holder = ${holder},
        claimed_until = now() + make_interval(secs => ${ttlMs / 1000})
      where run_id = ${runId}
        and (holder is null or holder = ${holder} or holder = ${takeOverFrom ?? holder}
          or claimed_until is null or claimed_until < now())
      returning finished`.execute(this.#db);
    const [claimed] = rows;
    if (claimed) return { ok: true, finished: claimed.finished };
    const held = await this.#db
      .selectFrom('undo_runs')
      .select(['holder', 'claimed_until'])
      .where('run_id', '=', runId)
      .executeTakeFirst();
    return { ok: false, holder: held?.holder ?? 'another process', until: held?.claimed_until ?? new Date() };
  }

  /** Gives the claim up (only the holder's own). */
  async releaseClaim(runId: string, holder: string): Promise<void> {
    await this.#db
      .updateTable('undo_runs')
      .set({ holder: null, claimed_until: null })
      .where('run_id', '=', runId)
      .where('holder', '=', holder)
      .execute();
  }

  /** The accounts of the undo run that are started or done, by `crm \0 tenant \0 account`. */
  async accountStates(runId: string): Promise<Map<string, 'started' | 'done'>> {
    const rows = await this.#db
      .selectFrom('undo_accounts')
      .select(['crm', 'tenant', 'account_id', 'state'])
      .where('run_id', '=', runId)
      .execute();
    return new Map(rows.map((r) => [accountKey({ ...r, accountId: r.account_id }), r.state]));
  }

  /** The fields the undo run recorded as put back on these accounts, as `account \0 field`. */
  async restoredBy(
    runId: string,
    crm: string,
    tenant: string,
    accountIds: readonly string[],
  ): Promise<Set<string>> {
    if (!accountIds.length) return new Set();
    const rows = await this.#db
      .selectFrom('field_writes')
      .select(['account_id', 'field'])
      .where('run_id', '=', runId)
      .where('crm', '=', crm)
      .where('tenant', '=', tenant)
      .where('account_id', 'in', [...accountIds])
      .where('decision', '=', 'undo')
      .where('crm_result', '=', 'ok')
      .execute();
    return new Set(rows.map((r) => `${r.account_id}\u0000${r.field}`));
  }

  /** The values the undo run kept because a person changed them (the first `limit`, oldest first). */
  async keptBy(runId: string, limit: number) {
    const rows = await this.#db
      .selectFrom('field_writes')
      .select(['crm', 'tenant', 'account_id', 'field', 'old_value', 'new_value'])
      .where('run_id', '=', runId)
      .where('decision', '=', 'undo-kept-edit')
      .orderBy('id')
      .limit(limit)
      .execute();
    // Recorded as the person's value (old) and the value before ours, which was not sent (new).
    return rows.map((r) => ({
      crm: r.crm,
      tenant: r.tenant,
      accountId: r.account_id,
      field: r.field,
      current: r.old_value,
      before: r.new_value,
    }));
  }

  /** Marks accounts started before their CRM writes (one statement); a done account stays done. */
  async markStarted(runId: string, accounts: readonly UndoAccount[]): Promise<void> {
    if (!accounts.length) return;
    await this.#db
      .insertInto('undo_accounts')
      .values(
        accounts.map((a) => ({
          run_id: runId,
          crm: a.crm,
          tenant: a.tenant,
          account_id: a.accountId,
          state: 'started' as const,
        })),
      )
      .onConflict((oc) => oc.columns(['run_id', 'crm', 'tenant', 'account_id']).doNothing())
      .execute();
  }

  /**
   * One batch's record, in one transaction: its field writes (and the values it kept), its note
   * removals, the accounts now done, and the run's counts so far.
   */
  async recordBatch(
    runId: string,
    batch: {
      fields: readonly FieldWriteEntry[];
      removals: readonly NoteRemovalEntry[];
      done: readonly UndoAccount[];
      counts: Record<string, number>;
      /** The accounts whose match fields the batch put back. */
      outcomes?: readonly OutcomeAfterUndo[];
    },
  ): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      for (const o of batch.outcomes ?? []) {
        if (o.status === null) {
          await trx
            .deleteFrom('account_outcomes')
            .where('crm', '=', o.crm)
            .where('tenant', '=', o.tenant)
            .where('account_id', '=', o.accountId)
            .execute();
          continue;
        }
        // A status we never write (a person typed it) leaves the outcome as it is.
        if (!isStatus(o.status)) continue;
        const status = o.status;
        const confidence = o.confidence === null ? null : Number(o.confidence);
        const enriched = status === 'enriched';
        const values = {
          status,
          buyer_id: enriched ? o.buyerId : null,
          buyer_name: enriched ? o.buyerName : null,
          confidence: confidence !== null && Number.isFinite(confidence) ? confidence : null,
          reason: o.reason,
          updated_at: new Date(),
        };
        // An undo of an undo brings back an outcome the first one removed: its name and state come
        // with the account's next enrichment.
        await trx
          .insertInto('account_outcomes')
          .values({
            crm: o.crm,
            tenant: o.tenant,
            account_id: o.accountId,
            cohort: enriched ? 'matched_by_name' : status,
            candidates: JSON.stringify([]),
            ...values,
          })
          .onConflict((oc) =>
            oc.columns(['crm', 'tenant', 'account_id']).doUpdateSet({
              ...values,
              // How an earlier match was made is not on the CRM: the outcome keeps what it said.
              cohort: enriched
                ? sql<Cohort>`case account_outcomes.matched_by when 'id' then 'matched_by_id' else 'matched_by_name' end`
                : status,
            }),
          )
          .execute();
      }
      if (batch.fields.length) await insertFieldWrites(trx, batch.fields).execute();
      if (batch.removals.length)
        await trx
          .insertInto('notes_removed')
          .values(
            batch.removals.map((r) => ({
              run_id: r.runId,
              trigger: 'undo',
              crm: r.crm,
              tenant: r.tenant,
              account_id: r.accountId,
              buyer_id: r.buyerId,
              note_id: r.noteId,
              dedupe_key: r.dedupeKey,
              title: r.title,
              outcome: r.outcome,
              at: r.at,
            })),
          )
          .execute();
      if (batch.done.length)
        await trx
          .insertInto('undo_accounts')
          .values(
            batch.done.map((a) => ({
              run_id: runId,
              crm: a.crm,
              tenant: a.tenant,
              account_id: a.accountId,
              state: 'done' as const,
            })),
          )
          .onConflict((oc) =>
            oc.columns(['run_id', 'crm', 'tenant', 'account_id']).doUpdateSet({ state: 'done' }),
          )
          .execute();
      await trx
        .updateTable('runs')
        .set({ counts: JSON.stringify(batch.counts) })
        .where('id', '=', runId)
        .execute();
    });
  }

  /** The undo run is over: its final counts, and its target free for a new undo. */
  async finish(runId: string, counts: Record<string, number>, at = new Date()): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await new Runs(trx).finish(runId, counts, at);
      await trx.updateTable('undo_runs').set({ finished: true }).where('run_id', '=', runId).execute();
    });
  }

  /** The target of an undo run, or null for any other run. */
  async targetOf(runId: string): Promise<string | null> {
    const row = await this.#db
      .selectFrom('undo_runs')
      .select('target')
      .where('run_id', '=', runId)
      .executeTakeFirst();
    return row?.target ?? null;
  }
}

export { accountKey as undoAccountKey };
