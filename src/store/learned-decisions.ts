// The rules a person's confirm or reject teaches, per CRM and tenant (no tenant learns from another's):
// written with the decision that made them, read by the enrichment before it keeps a decision, and
// marked undone when that decision is undone (src/resolve/learned.ts says what they mean).
import { type Kysely, sql } from 'kysely';
import type { LearnedRule, NameForm } from '../resolve/learned.ts';
import type { Database } from './schema.ts';

export interface NewLearned extends NameForm {
  crm: string;
  tenant: string;
  accountId: string;
  accountName: string | null;
  buyerId: string;
  buyerName: string | null;
  verdict: 'confirm' | 'reject';
  decisionId: string | null;
  runId: string | null;
}

interface Row {
  verdict: 'confirm' | 'reject';
  buyer_id: string;
  buyer_name: string | null;
  account_name: string | null;
  state: string;
  created_at: Date | string;
}

/** A stored rule as the resolver reads it (src/resolve/learned.ts). */
export function learnedRuleOf(r: Row): LearnedRule {
  return {
    verdict: r.verdict,
    buyerId: r.buyer_id,
    buyerName: r.buyer_name,
    accountName: r.account_name,
    state: r.state,
    at: new Date(r.created_at),
  };
}

export class LearnedDecisions {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Records a rule; the same live rule twice is kept once. */
  async record(l: NewLearned): Promise<void> {
    await sql`insert into learned_decisions
      (crm, tenant, name_form, state, buyer_id, buyer_name, account_name, verdict, decision_id, account_id, run_id)
      values (${l.crm}, ${l.tenant}, ${l.nameForm}, ${l.state}, ${l.buyerId}, ${l.buyerName},
        ${l.accountName}, ${l.verdict}, ${l.decisionId}, ${l.accountId}, ${l.runId})
      on conflict (crm, tenant, name_form, state, buyer_id, verdict) where undone_at is null do nothing`.execute(
      this.#db,
    );
  }

  /** The live rules for a name form in one tenant, newest first. */
  async rulesFor(scope: { crm: string; tenant: string }, form: NameForm): Promise<LearnedRule[]> {
    return (await this.rulesForMany(scope, [form]))[0] ?? [];
  }

  /**
   * The live rules for several name forms of one tenant in one statement, newest first, one list per
   * form: a backfill chunk's accounts ask together (learned-lookup.ts), not one statement each.
   */
  async rulesForMany(
    scope: { crm: string; tenant: string },
    forms: readonly NameForm[],
  ): Promise<LearnedRule[][]> {
    if (!forms.length) return [];
    const names = forms.map((f) => f.nameForm);
    const states = forms.map((f) => f.state);
    const { rows } = await sql<
      Row & { name_form: string }
    >`select verdict, buyer_id, buyer_name, account_name,
      state, created_at, name_form
      from learned_decisions where crm = ${scope.crm} and tenant = ${scope.tenant} and undone_at is null
      and (name_form, state) in (select * from unnest(${names}::text[], ${states}::text[]))
      order by created_at desc, id desc`.execute(this.#db);
    const byForm = new Map<string, LearnedRule[]>();
    for (const r of rows) {
      const key = formKey(r.name_form, r.state);
      byForm.set(key, [...(byForm.get(key) ?? []), learnedRuleOf(r)]);
    }
    return forms.map((f) => byForm.get(formKey(f.nameForm, f.state)) ?? []);
  }

  /** Takes back the rules an account's decisions made (the account's undo). Returns how many. */
  async undoForAccount(
    key: { crm: string; tenant: string; accountId: string },
    verdict?: 'confirm' | 'reject',
  ): Promise<number> {
    const r = await sql`update learned_decisions set undone_at = now()
      where crm = ${key.crm} and tenant = ${key.tenant} and account_id = ${key.accountId}
      and undone_at is null and (${verdict ?? null}::text is null or verdict = ${verdict ?? null})`.execute(
      this.#db,
    );
    return Number(r.numAffectedRows ?? 0);
  }

  /**
   * Takes back the rules the decisions an undo undoes made: a run's (a bulk approve, one confirm), or
   * an account's change that a decision's run made. Returns how many.
   */
  async undoFor(
    scope:
      | { kind: 'run'; runId: string }
      | { kind: 'job'; jobId: string }
      | { kind: 'change'; crm: string; tenant: string; accountId: string; runId: string | null }
      | { kind: 'all'; crm: string; tenant: string; accountId: string },
  ): Promise<number> {
    // A reject's own take-back undoes the account's earlier writes ('all'), not the reject's rule.
    if (scope.kind === 'job' || scope.kind === 'all' || !scope.runId) return 0;
    const account = scope.kind === 'change' ? scope.accountId : null;
    const r = await sql`update learned_decisions set undone_at = now()
      where run_id = ${scope.runId} and undone_at is null
      and (${account}::text is null or account_id = ${account})`.execute(this.#db);
    return Number(r.numAffectedRows ?? 0);
  }

  /** The rules an account's decisions made, for its history; without a tenant, in every tenant. */
  async forAccount(key: { crm: string; tenant?: string | undefined; accountId: string }) {
    const tenant = key.tenant ?? null;
    const { rows } = await sql<
      Row & { tenant: string; name_form: string; undone_at: Date | null; decision_id: string | null }
    >`select verdict, buyer_id, buyer_name, account_name, state, created_at, name_form, undone_at,
      tenant, decision_id::text as decision_id from learned_decisions
      where crm = ${key.crm} and (${tenant}::text is null or tenant = ${tenant})
      and account_id = ${key.accountId}
      order by created_at desc, id desc`.execute(this.#db);
    return rows;
  }
}

const formKey = (nameForm: string, state: string) => `${nameForm}\u0000${state}`;
