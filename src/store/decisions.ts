// Every review decision a person made, appended and never changed: what, on which account, who (an API
// key's fingerprint, a CRM user, the admin page's user, the CLI) and when.

import type { Kysely } from 'kysely';
import type { AccountRef } from '../../connectors/types.ts';
import { LearnedDecisions, type NewLearned } from './learned-decisions.ts';
import type { ActorKind, Database, DecisionAction } from './schema.ts';

export interface Actor {
  kind: ActorKind;
  name: string;
}

export interface NewDecision extends AccountRef {
  action: DecisionAction;
  buyerId?: string | null | undefined;
  params?: Record<string, unknown> | undefined;
  actor: Actor;
  runId?: string | null | undefined;
  at?: Date | undefined;
}

export interface Decision extends Required<Omit<NewDecision, 'at' | 'params'>> {
  id: string;
  params: Record<string, unknown>;
  at: Date;
}

export class Decisions {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /**
   * Appends a decision and the rule it teaches (src/resolve/learned.ts) in one transaction: a rule is
   * never on the record without the decision that made it, nor a decision without what it taught.
   */
  async append(d: NewDecision, teaches?: Omit<NewLearned, 'decisionId'> | null): Promise<string> {
    if (!teaches) return this.#insert(this.#db, d);
    return this.#db.transaction().execute(async (trx) => {
      const id = await this.#insert(trx, d);
      await new LearnedDecisions(trx).record({ ...teaches, decisionId: id });
      return id;
    });
  }

  async #insert(db: Kysely<Database>, d: NewDecision): Promise<string> {
    const row = await db
      .insertInto('decisions')
      .values({
        crm: d.crm,
        tenant: d.tenant,
        account_id: d.accountId,
        action: d.action,
        buyer_id: d.buyerId ?? null,
        params: JSON.stringify(d.params ?? {}),
        actor_kind: d.actor.kind,
        actor: d.actor.name,
        run_id: d.runId ?? null,
        ...(d.at ? { at: d.at } : {}),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return String(row.id);
  }

  /**
   * Many decisions, 500 a statement (a bulk approve), with the rules they teach (`teaches[i]` is the
   * rule of `ds[i]`, null for none) in the same transaction, each rule naming its decision.
   */
  async appendMany(
    ds: readonly NewDecision[],
    teaches: readonly (Omit<NewLearned, 'decisionId'> | null)[] = [],
  ): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      const learned = new LearnedDecisions(trx);
      for (let i = 0; i < ds.length; i += 500) {
        const rows = await this.#insertMany(trx, ds.slice(i, i + 500));
        // By the account, not the row's place: a multi-row insert promises no order of what it returns
        // (a bulk approve decides each account once).
        const ids = new Map(
          rows.map((r) => [`${r.crm}\u0000${r.tenant}\u0000${r.account_id}`, String(r.id)]),
        );
        for (const [j, d] of ds.slice(i, i + 500).entries()) {
          const rule = teaches[i + j];
          const id = ids.get(`${d.crm}\u0000${d.tenant}\u0000${d.accountId}`);
          if (rule && id) await learned.record({ ...rule, decisionId: id });
        }
      }
    });
  }

  async #insertMany(db: Kysely<Database>, ds: readonly NewDecision[]) {
    return db
      .insertInto('decisions')
      .values(
        ds.map((d) => ({
          crm: d.crm,
          tenant: d.tenant,
          account_id: d.accountId,
          action: d.action,
          buyer_id: d.buyerId ?? null,
          params: JSON.stringify(d.params ?? {}),
          actor_kind: d.actor.kind,
          actor: d.actor.name,
          run_id: d.runId ?? null,
          ...(d.at ? { at: d.at } : {}),
        })),
      )
      .returning(['id', 'crm', 'tenant', 'account_id'])
      .execute();
  }

  /** An account's decisions, newest first. */
  async forAccount(key: AccountRef, limit = 100): Promise<Decision[]> {
    const rows = await this.#db
      .selectFrom('decisions')
      .selectAll()
      .where('crm', '=', key.crm)
      .where('tenant', '=', key.tenant)
      .where('account_id', '=', key.accountId)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      id: String(r.id),
      crm: r.crm,
      tenant: r.tenant,
      accountId: r.account_id,
      action: r.action,
      buyerId: r.buyer_id,
      params: r.params,
      actor: { kind: r.actor_kind, name: r.actor },
      runId: r.run_id === null ? null : String(r.run_id),
      at: new Date(r.at),
    }));
  }
}
