// Which buyer each account is matched to, as the outcomes record it: the truth behind Redis' index of
// matched accounts (src/write/ledgers.ts), which is rebuilt from here when Redis lost it.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface MatchedAccount {
  account: { crm: string; tenant: string; accountId: string };
  buyerId: string;
}

export class MatchedAccounts {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** Every account whose latest outcome is enriched, with its buyer, a page at a time (keyset). */
  async *pages(size = 1_000): AsyncGenerator<MatchedAccount[]> {
    let after = '0';
    for (;;) {
      const rows = await this.#db
        .selectFrom('account_outcomes')
        .select(['id', 'crm', 'tenant', 'account_id', 'buyer_id'])
        .where('status', '=', 'enriched')
        .where('buyer_id', 'is not', null)
        .where('id', '>', after)
        .orderBy('id')
        .limit(size)
        .execute();
      if (!rows.length) return;
      yield rows.map((r) => ({
        account: { crm: r.crm, tenant: r.tenant, accountId: r.account_id },
        buyerId: r.buyer_id ?? '',
      }));
      after = rows[rows.length - 1]?.id ?? after;
      if (rows.length < size) return;
    }
  }
}
