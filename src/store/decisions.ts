// Every review decision a person made, appended and never changed: what, on which account, who (an API
// key's fingerprint, a CRM user, the admin page's user, the CLI) and when.

import type { Kysely } from 'kysely';
import type { AccountRef } from '../../connectors/types.ts';
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

  async append(d: NewDecision): Promise<string> {
    const row = await this.#db
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

  /** Many decisions in one statement (a bulk approve). */
  async appendMany(ds: readonly NewDecision[]): Promise<void> {
    for (let i = 0; i < ds.length; i += 500) {
      await this.#db
        .insertInto('decisions')
        .values(
          ds.slice(i, i + 500).map((d) => ({
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
        .execute();
    }
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
