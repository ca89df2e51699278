// What the review queue keeps besides each account's outcome: a person's pin (a rejected account stays
// `no_match` until cleared) and duplicates groups (accounts of one tenant resolved to one buyer), with
// the CRM mark each member was last given.

import { type Kysely, sql } from 'kysely';
import type { AccountRef } from '../../connectors/types.ts';
import { type Outcome, outcomeOf } from './outcomes.ts';
import type { Database } from './schema.ts';

export interface DuplicatesGroup {
  crm: string;
  tenant: string;
  buyerId: string;
  members: Outcome[];
}

export class ReviewRecords {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /**
   * The account becomes a pinned `no_match` with this reason, now (before its job writes the CRM). No
   * job wrote it, so it has no job id: the job that first applies it knows so, and reconciles the
   * duplicates group the account was taken out of.
   */
  async pin(key: AccountRef, reason: string, meta: { runId?: string | undefined } = {}): Promise<void> {
    const values = {
      crm: key.crm,
      tenant: key.tenant,
      account_id: key.accountId,
      status: 'no_match' as const,
      cohort: 'no_match' as const,
      matched_by: null,
      buyer_id: null,
      buyer_name: null,
      buyer_type: null,
      confidence: null,
      reason,
      candidates: '[]',
      error: null,
      pinned: true,
      run_id: meta.runId ?? null,
      job_id: null,
      updated_at: new Date(),
    };
    const { crm, tenant, account_id, ...update } = values;
    await this.#db
      .insertInto('account_outcomes')
      .values(values)
      .onConflict((oc) => oc.columns(['crm', 'tenant', 'account_id']).doUpdateSet(update))
      .execute();
  }

  /** The outcomes of these accounts (those that have one). */
  async outcomesOf(keys: readonly AccountRef[]): Promise<Outcome[]> {
    if (!keys.length) return [];
    const rows = await this.#db
      .selectFrom('account_outcomes')
      .selectAll()
      .where(
        sql<boolean>`(crm, tenant, account_id) in (${sql.join(keys.map((k) => sql`(${k.crm}, ${k.tenant}, ${k.accountId})`))})`,
      )
      .execute();
    return rows.map(outcomeOf);
  }

  /** Removes a person's pin; whether there was one. */
  async unpin(key: AccountRef): Promise<boolean> {
    const result = await this.#db
      .updateTable('account_outcomes')
      .set({ pinned: false })
      .where('crm', '=', key.crm)
      .where('tenant', '=', key.tenant)
      .where('account_id', '=', key.accountId)
      .where('pinned', '=', true)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Every account of the tenant resolved to one of these buyers, and the account itself. With
   * `formerGroups`, also every group with a member marked a duplicate of the account: the groups it
   * was the recommended one of, even once its own buyer is gone (a rejection erases it at once). That
   * reads the tenant's marks (no index), so only the job that first applies a rejection asks it.
   */
  async members(
    key: AccountRef,
    buyerIds: readonly string[],
    options: { formerGroups?: boolean } = {},
  ): Promise<Outcome[]> {
    return this.membersOfMany(key.crm, key.tenant, {
      accountIds: [key.accountId],
      buyerIds,
      formerGroupsOf: options.formerGroups ? [key.accountId] : [],
    });
  }

  /**
   * `members` for several accounts of one tenant in one statement (a backfill chunk's): these accounts,
   * every account resolved to one of these buyers, and every group with a member marked a duplicate of
   * one of `formerGroupsOf`.
   */
  async membersOfMany(
    crm: string,
    tenant: string,
    of: { accountIds: readonly string[]; buyerIds: readonly string[]; formerGroupsOf: readonly string[] },
  ): Promise<Outcome[]> {
    if (!of.accountIds.length && !of.buyerIds.length && !of.formerGroupsOf.length) return [];
    const rows = await this.#db
      .selectFrom('account_outcomes')
      .selectAll()
      .where('crm', '=', crm)
      .where('tenant', '=', tenant)
      .where((eb) =>
        eb.or([
          ...(of.accountIds.length ? [eb('account_id', 'in', [...of.accountIds])] : []),
          ...(of.buyerIds.length ? [eb('buyer_id', 'in', [...of.buyerIds])] : []),
          ...(of.formerGroupsOf.length
            ? [
                eb(
                  'buyer_id',
                  'in',
                  eb
                    .selectFrom('account_outcomes as marked')
                    .select('marked.buyer_id')
                    .where('marked.crm', '=', crm)
                    .where('marked.tenant', '=', tenant)
                    .where('marked.duplicate_of', 'in', [...of.formerGroupsOf]),
                ),
              ]
            : []),
        ]),
      )
      .execute();
    return rows.map(outcomeOf);
  }

  /** Remembers the CRM mark each account was given (null: none). */
  async markDuplicates(
    crm: string,
    tenant: string,
    marks: readonly { accountId: string; duplicateOf: string | null }[],
  ): Promise<void> {
    for (const chunk of chunks(marks, 500)) {
      const values = sql.join(chunk.map((m) => sql`(${m.accountId}::text, ${m.duplicateOf}::text)`));
      await sql`update account_outcomes as o set duplicate_of = v.duplicate_of
        from (values ${values}) as v(account_id, duplicate_of)
        where o.crm = ${crm} and o.tenant = ${tenant} and o.account_id = v.account_id`.execute(this.#db);
    }
  }

  /** Duplicates groups in (crm, tenant, buyer) order, keyset-paged by the last group's key. */
  async groups(
    scope: { crm?: string | undefined; tenant?: string | undefined },
    page: { limit: number; after?: readonly [string, string, string] | undefined },
  ): Promise<{ groups: DuplicatesGroup[]; next: [string, string, string] | null }> {
    const limit = Math.max(1, Math.min(200, Math.floor(page.limit)));
    let keys = this.#db
      .selectFrom('account_outcomes')
      .select(['crm', 'tenant', 'buyer_id'])
      .where('buyer_id', 'is not', null);
    if (scope.crm !== undefined) keys = keys.where('crm', '=', scope.crm);
    if (scope.tenant !== undefined) keys = keys.where('tenant', '=', scope.tenant);
    if (page.after) {
      const [c, t, b] = page.after;
      keys = keys.where(sql<boolean>`(crm, tenant, buyer_id) > (${c}, ${t}, ${b})`);
    }
    const found = await keys
      .groupBy(['crm', 'tenant', 'buyer_id'])
      .having((eb) => eb.fn.countAll(), '>', 1)
      .orderBy('crm')
      .orderBy('tenant')
      .orderBy('buyer_id')
      .limit(limit + 1)
      .execute();
    const shown = found.slice(0, limit);
    if (!shown.length) return { groups: [], next: null };
    const rows = await this.#db
      .selectFrom('account_outcomes')
      .selectAll()
      .where(
        sql<boolean>`(crm, tenant, buyer_id) in (${sql.join(shown.map((k) => sql`(${k.crm}, ${k.tenant}, ${k.buyer_id})`))})`,
      )
      .orderBy('id')
      .execute();
    const groups = shown.map((k) => ({
      crm: k.crm,
      tenant: k.tenant,
      buyerId: String(k.buyer_id),
      members: rows
        .filter((r) => r.crm === k.crm && r.tenant === k.tenant && r.buyer_id === k.buyer_id)
        .map(outcomeOf),
    }));
    const last = shown.at(-1);
    return {
      groups,
      next: found.length > limit && last ? [last.crm, last.tenant, String(last.buyer_id)] : null,
    };
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
