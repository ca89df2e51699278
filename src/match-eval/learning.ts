// What the tenants of a `match-eval` run learnt: the service's own learned-decisions table in an
// embedded PostgreSQL in memory (gone when the command ends: match-eval still writes nothing anywhere),
// filled through the review service's recording (src/review/learn.ts) and read through the
// enrichment's lookup (src/resolve/learned.ts), so the figures are those of the rules the service keeps.
import { decideWithLearned } from '../resolve/learned.ts';
import type { AccountForMatching, MatchDecision } from '../resolve/types.ts';
import { learnedRowOf } from '../review/learn.ts';
import { Store } from '../store/store.ts';
import type { MatchResolver } from './evaluate.ts';

/** The CRM the rules are filed under: no CRM's, so no real tenant's rule could be read by mistake. */
const CRM = 'match-eval';

export interface Taught {
  /** Who the account was (its label), as an account id the rule keeps. */
  accountId: string;
  name: string | null;
  state: string | null;
  buyerId: string;
  buyerName: string | null;
  verdict: 'confirm' | 'reject';
}

export interface Learning {
  /** Records a person's decision for the tenant; false when the name gives no form to learn by. */
  teach(tenant: string, t: Taught): Promise<boolean>;
  /** The resolver as the tenant's enrichment decides: its learned rules applied. */
  resolverFor(tenant: string, resolver: MatchResolver): MatchResolver;
  close(): Promise<void>;
}

export async function openLearning(): Promise<Learning> {
  const store = new Store({ pgliteDir: 'memory' });
  const { learned, decisions } = await store.open();
  return {
    async teach(tenant, t) {
      const key = { crm: CRM, tenant, accountId: t.accountId };
      const rule = learnedRowOf(
        key,
        {
          outcome: { accountName: t.name, state: t.state },
          buyerId: t.buyerId,
          buyerName: t.buyerName,
          verdict: t.verdict,
        },
        null,
      );
      // The decision and its rule, as the review service records them (one transaction).
      await decisions.append(
        {
          ...key,
          action: t.verdict,
          buyerId: t.buyerId,
          actor: { kind: 'cli', name: 'match-eval' },
        },
        rule,
      );
      return rule !== null;
    },
    resolverFor: (tenant, resolver) => ({
      resolve: (account: AccountForMatching): Promise<MatchDecision> =>
        decideWithLearned(
          account,
          (form) => learned.rulesFor({ crm: CRM, tenant }, form),
          () => resolver.resolve(account),
        ),
    }),
    close: () => store.close(),
  };
}
