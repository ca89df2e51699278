// `review list|approve|reject|research|clear`: the review queue at a terminal. Decisions are recorded as
// actor `cli (<$USER>)` and applied by the worker (the normal job flow): Redis and the database must be
// up, and the embedded database only when no `start` holds it (as for `enrich`).

import type { z } from 'zod';
import { loadEnv } from '../config/env.ts';
import { topCandidate } from '../review/learn.ts';
import { ActionProblem } from '../review/problem.ts';
import { outcomeFilterOf, recordIdSchema, reviewFilterSchema, reviewPageSchema } from '../review/schemas.ts';
import { reviewService } from '../review/service.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import type { Actor } from '../store/decisions.ts';
import { type CommandBody, UsageError } from './command.ts';
import { crmChoices, crmConnection } from './crm-option.ts';
import { operatorName } from './operator.ts';
import { requireRedis } from './redis-check.ts';
import { renderTable } from './table.ts';

const ACTIONS = ['list', 'approve', 'reject', 'research', 'clear'] as const;

function valid<T>(schema: z.ZodType<T, unknown>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new UsageError(`--${String(issue?.path[0] ?? 'option')}: ${issue?.message ?? 'invalid'}`);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

export const reviewCommand: CommandBody = {
  usage: `buyer-intel-sync review list [--cohort <c>] [--crm ${crmChoices()}] [--state TX] [--q <name>] [--min 0.5] [--max 0.9] [--sort confidence|date] [--after <cursor>] [--limit 50]
buyer-intel-sync review approve --floor 0.7 [list filters] [--yes]
buyer-intel-sync review reject --crm <crm> --account <id> --reason <words>
buyer-intel-sync review research --crm <crm> --account <id> [--name <name>] [--state <state>]
buyer-intel-sync review clear --crm <crm> --account <id>

Cohorts: matched_by_id, matched_by_name, needs_review, no_match, error, duplicates. approve confirms the
top candidate of every needs_review account the filters show scoring at least --floor; without --yes it
only says how many it would approve. Decisions are recorded as "cli (<$USER>)" and applied by the
worker. Reads the environment (see .env.example).`,
  options: {
    cohort: { type: 'string' },
    crm: { type: 'string' },
    state: { type: 'string' },
    q: { type: 'string' },
    min: { type: 'string' },
    max: { type: 'string' },
    sort: { type: 'string' },
    after: { type: 'string' },
    limit: { type: 'string' },
    floor: { type: 'string' },
    yes: { type: 'boolean', default: false },
    account: { type: 'string' },
    reason: { type: 'string' },
    name: { type: 'string' },
  },
  deadlineMs: 180_000,
  async run(values, positionals) {
    const action = positionals[0];
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number]))
      throw new UsageError(`review needs one of ${ACTIONS.join(', ')}`);
    const filterInput = valid(reviewFilterSchema, {
      ...(str(values.cohort) ? { cohort: str(values.cohort) } : {}),
      ...(str(values.state) && action !== 'research' ? { state: str(values.state) } : {}),
      ...(str(values.q) ? { q: str(values.q) } : {}),
      ...(str(values.min) ? { minConfidence: str(values.min) } : {}),
      ...(str(values.max) ? { maxConfidence: str(values.max) } : {}),
    });
    const settings = await settingsFromEnv(loadEnv());
    const scope =
      values.crm === undefined && action !== 'reject' && action !== 'research' && action !== 'clear'
        ? undefined
        : crmConnection(values.crm, settings);
    await requireRedis(settings.redisUrl, settings.prefix);
    const service = createService(settings);
    const review = reviewService({
      store: service.store,
      queue: service.queue,
      attempts: settings.worker.attempts,
    });
    const actor: Actor = { kind: 'cli', name: operatorName() };
    const out = (text: string) => process.stdout.write(`${text}\n`);
    try {
      const filter = outcomeFilterOf({
        ...filterInput,
        ...(scope ? { crm: scope.crm, tenant: scope.tenant } : {}),
      });
      if (action === 'list') {
        const page = valid(reviewPageSchema, {
          ...(str(values.sort) ? { sort: str(values.sort) } : {}),
          ...(str(values.after) ? { after: str(values.after) } : {}),
          ...(str(values.limit) ? { limit: str(values.limit) } : {}),
        });
        const listed = await review.list(filter, {
          sort: page.sort,
          direction: page.direction,
          limit: page.limit,
          ...(page.after ? { after: page.after } : {}),
        });
        out(
          renderTable(
            Object.entries(listed.counts).map(([k, n]) => [k, n]),
            { head: ['cohort', 'accounts'] },
          ),
        );
        out(
          listed.rows.length
            ? renderTable(
                listed.rows.map((r) => {
                  const top = topCandidate(r);
                  return [
                    r.crm,
                    r.accountId,
                    r.accountName,
                    r.state,
                    r.cohort,
                    r.confidence?.toFixed(2),
                    r.buyerName ?? (top ? `? ${top.name}` : ''),
                  ];
                }),
                { head: ['crm', 'account', 'name', 'state', 'cohort', 'conf.', 'buyer (? = top candidate)'] },
              )
            : 'no accounts match',
        );
        if (listed.next) out(`next page: --after ${listed.next}`);
        return 0;
      }
      if (action === 'approve') {
        if (values.floor === undefined) throw new UsageError('--floor <0..1> is required');
        const floor = valid(reviewFilterSchema.shape.minConfidence, values.floor) ?? 0;
        const yes = values.yes === true;
        const result = await review.approve({ filter, floor }, actor, !yes);
        if (result.preview) {
          if (result.sample.length)
            out(
              renderTable(
                result.sample.map((s) => [s.accountId, s.accountName, s.buyerName, s.score.toFixed(2)]),
                { head: ['account', 'name', 'top candidate', 'score'] },
              ),
            );
          out(`approve ${result.count} account${result.count === 1 ? '' : 's'}? run again with --yes`);
        } else out(`approved ${result.approved} (run ${result.runId}); the worker applies them`);
        return 0;
      }
      if (!scope) throw new UsageError('--crm is required');
      const accountId = valid(recordIdSchema, str(values.account) ?? '');
      const key = { crm: scope.crm, tenant: scope.tenant, accountId };
      if (action === 'reject') {
        const reason = str(values.reason);
        if (!reason) throw new UsageError('--reason <words> is required');
        const q = await review.reject(key, reason, actor);
        out(`rejected ${accountId}; job ${q.jobId}`);
      } else if (action === 'research') {
        const name = str(values.name);
        const state = str(values.state);
        if (!name && !state) throw new UsageError('--name or --state is required');
        const q = await review.research(key, { name, state }, actor);
        out(`re-searching ${accountId}; job ${q.jobId}`);
      } else {
        const q = await review.clear(key, actor);
        out(`${q.wasPinned ? 'cleared' : 'was not pinned; re-enriching'} ${accountId}; job ${q.jobId}`);
      }
      return 0;
    } catch (err) {
      if (err instanceof ActionProblem) throw new Error(err.message);
      throw err;
    } finally {
      await service.close();
    }
  },
};
