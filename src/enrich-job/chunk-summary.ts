// What a backfill chunk's job keeps of each account's result. A chunk's return value stays in Redis
// with its job for a day (and passes through BullMQ's event stream), one per 100 accounts: a
// 250,000-account backfill kept ~1.8 GB there with every field's decision (~5 KB of the ~7 KB an
// account's result takes). The decisions — each field old → new, its policy and reason — are in the
// write history (`GET /api/accounts/:crm/:accountId/history`), the candidates of an account that needs
// review in the review queue (`GET /api/accounts/:crm/:accountId`); one account's own job keeps all.
import type { EnrichResult } from '../enrich/types.ts';

export type EnrichSummary = Omit<EnrichResult, 'fields' | 'match'> & {
  match: Omit<EnrichResult['match'], 'candidates'>;
};

export function summarize(result: EnrichResult): EnrichSummary {
  const { fields: _fields, match, ...rest } = result;
  const { candidates: _candidates, ...kept } = match;
  return { ...rest, match: kept };
}
