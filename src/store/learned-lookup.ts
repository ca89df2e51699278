// The enrichment's lookup of what a tenant learnt (learned-decisions.ts), batched: a backfill chunk's
// accounts come out of their CRM read in one tick and each asks for its name form's rules. One
// statement per account was 500 of the 684 PostgreSQL statements of a 500-account backfill at the
// provider's pace (bench, issue #42: 1.37 statements per account against a goal of 1); asked together,
// a chunk's accounts cost one statement per tenant. A lone account (a webhook's) leaves at once.

import { Batcher } from '../batch/batcher.ts';
import type { LearnedRule, NameForm } from '../resolve/learned.ts';
import type { LearnedDecisions } from './learned-decisions.ts';

interface Ask {
  scope: { crm: string; tenant: string };
  form: NameForm;
}

export type LearnedLookup = (
  scope: { crm: string; tenant: string },
  form: NameForm,
) => Promise<LearnedRule[]>;

export function batchedLearnedLookup(open: () => Promise<LearnedDecisions>): LearnedLookup {
  const batcher = new Batcher<Ask, LearnedRule[]>({
    maxBatch: 500,
    send: async (asks) => {
      const learned = await open();
      const byScope = new Map<string, number[]>();
      asks.forEach((a, i) => {
        const key = JSON.stringify([a.scope.crm, a.scope.tenant]);
        byScope.set(key, [...(byScope.get(key) ?? []), i]);
      });
      const out: LearnedRule[][] = asks.map(() => []);
      await Promise.all(
        [...byScope.values()].map(async (indexes) => {
          const first = asks[indexes[0] ?? 0] as Ask;
          const found = await learned.rulesForMany(
            first.scope,
            indexes.map((i) => (asks[i] as Ask).form),
          );
          indexes.forEach((i, k) => {
            out[i] = found[k] ?? [];
          });
        }),
      );
      return out;
    },
  });
  return (scope, form) => batcher.submit({ scope, form });
}
