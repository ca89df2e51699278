// /admin/export/review.csv and /admin/export/history.csv: the review queue (the review page's filter)
// and the write history (of one account, one run, or everything), streamed a keyset page of 500 at a
// time through PostgreSQL with backpressure (csv.ts), so a 250,000-row export holds one page in memory.
// Behind the console's own auth (they are under /admin); the query is checked before the first byte.
import type express from 'express';
import { z } from 'zod';
import { readStore } from '../api/history-routes.ts';
import { runIdSchema } from '../api/runs-routes.ts';
import {
  canonicalAccount,
  crmSchema,
  outcomeFilterOf,
  recordIdSchema,
  reviewFilterSchema,
  tenantIdSchema,
} from '../review/schemas.ts';
import type { Outcome } from '../store/outcomes.ts';
import type { Store } from '../store/store.ts';
import type { HistoryEvent, HistoryPage } from '../store/write-history.ts';
import { keysetPages, streamCsv } from './csv.ts';
import { changeWords } from './history-words.ts';
import { queryOf, valid } from './query.ts';
import type { RecordUrl } from './record-link.ts';

const PAGE = 500;

const REVIEW_HEADER = [
  'crm',
  'tenant',
  'account_id',
  'account_name',
  'state',
  'status',
  'cohort',
  'confidence',
  'reason',
  'best_buyer_id',
  'best_buyer_name',
  'best_score',
  'other_candidates',
  'pinned',
  'updated_at',
  'record_url',
];

const historyQuery = z
  .strictObject({
    run: runIdSchema.optional(),
    crm: crmSchema.optional(),
    accountId: recordIdSchema.optional(),
    tenant: tenantIdSchema.optional(),
  })
  .refine((q) => q.accountId === undefined || q.crm !== undefined, {
    message: 'give the crm of the account',
    path: ['crm'],
  })
  .refine((q) => q.run === undefined || q.accountId === undefined, {
    message: 'give a run or an account, not both',
    path: ['run'],
  });

const HISTORY_HEADER = [
  'at',
  'crm',
  'tenant',
  'account_id',
  'run_id',
  'run_kind',
  'job_id',
  'trigger',
  'buyer_id',
  'type',
  'field',
  'attribute',
  'policy',
  'old_value',
  'new_value',
  'decision',
  'crm_result',
  'crm_error',
  'change',
  'note_id',
  'note_title',
];

function reviewCells(o: Outcome, recordUrl: RecordUrl | undefined): unknown[] {
  const [best, ...others] = [...o.candidates].sort((a, b) => b.score - a.score);
  return [
    o.crm,
    o.tenant,
    o.accountId,
    o.accountName,
    o.state,
    o.status,
    o.cohort,
    o.confidence,
    o.error ?? o.reason,
    best?.buyerId,
    best?.name,
    best?.score,
    others
      .map((c) => `${c.name} (${[c.stateCode, c.type].filter(Boolean).join(', ')}) ${c.score.toFixed(2)}`)
      .join('; '),
    o.pinned,
    o.updatedAt.toISOString(),
    recordUrl?.(o.crm, o.tenant, o.accountId),
  ];
}

function historyCells(e: HistoryEvent): unknown[] {
  const base = [
    e.at.toISOString(),
    e.crm,
    e.tenant,
    e.accountId,
    e.runId,
    e.run?.kind,
    e.jobId,
    e.trigger,
    e.buyerId,
  ];
  if (e.type === 'note')
    return [
      ...base,
      `note ${e.action}`,
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      e.noteId,
      e.title ?? e.dedupeKey,
    ];
  return [
    ...base,
    'field',
    e.field,
    e.attribute,
    e.policy,
    e.old,
    e.new,
    e.decision,
    e.result,
    e.error,
    changeWords(e),
    '',
    '',
  ];
}

export function addAdminExportRoutes(
  router: express.Router,
  options: { store: Pick<Store, 'open'>; recordUrl?: RecordUrl | undefined },
): void {
  const { store, recordUrl } = options;

  router.get('/export/review.csv', async (req, res, next) => {
    try {
      const query = valid(reviewFilterSchema, { cohort: 'needs_review', ...queryOf(req.query) }, 'query');
      const filter = outcomeFilterOf(query);
      // Each page through readStore: a store that stops answering is a 503 before the first byte.
      const pages = keysetPages((after) =>
        readStore(
          store,
          async ({ outcomes }) => {
            const page = await outcomes.list(filter, { sort: 'date', direction: 'desc', limit: PAGE, after });
            await recordUrl?.prepare?.(page.rows);
            return page;
          },
          'the review queue',
        ),
      );
      await streamCsv(res, 'review.csv', REVIEW_HEADER, pages, (o) => reviewCells(o, recordUrl));
    } catch (err) {
      next(err);
    }
  });

  router.get('/export/history.csv', async (req, res, next) => {
    try {
      const q = valid(historyQuery, queryOf(req.query), 'query');
      const account =
        q.accountId !== undefined && q.crm !== undefined
          ? canonicalAccount({ crm: q.crm, tenant: q.tenant, accountId: q.accountId })
          : null;
      const read = (after: string | undefined): Promise<HistoryPage> =>
        readStore(store, ({ writes }) =>
          q.run !== undefined
            ? writes.ofRun(q.run, { limit: PAGE, after })
            : account
              ? writes.forAccount(account, { limit: PAGE, after })
              : writes.all({ limit: PAGE, after }),
        );
      const pages = keysetPages(async (after) => {
        const page = await read(after);
        return { rows: page.events, next: page.next };
      });
      const name =
        q.run !== undefined
          ? `history-run-${q.run}.csv`
          : account
            ? `history-${account.accountId}.csv`
            : 'history.csv';
      await streamCsv(res, name, HISTORY_HEADER, pages, historyCells);
    } catch (err) {
      next(err);
    }
  });
}
