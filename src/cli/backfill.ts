import { createRedis } from '../../queues/redis.ts';
import {
  type BackfillState,
  backfillStateKey,
  estimateBackfill,
  readBackfillState,
  runBackfill,
} from '../backfill/backfill.ts';
import { type AccountFilter, parseFilter } from '../backfill/filter.ts';
import { loadEnv } from '../config/env.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import { type Command, numberOption, UsageError } from './command.ts';
import { crmChoices, crmConnection } from './crm-option.ts';
import { requireRedis } from './redis-check.ts';

export const backfillCommand: Command = {
  name: 'backfill',
  summary: 'Queue enrichment of existing CRM accounts (resumable), after a cost estimate',
  usage: `buyer-intel-sync backfill --crm ${crmChoices()} [--filter field=value ...] [--limit N] [--dry-run] [--restart]

Pages through the CRM's accounts, prints what enriching them will cost (accounts, Buyer
Intelligence calls, CRM calls), then queues one job per account at the lowest priority, so
webhook and refresh jobs always go first; the workers do the enriching. Killed midway, the same
command resumes after the last page it saved in Redis, and no account is queued twice.

  --filter   field=value, field!=value or field= (empty); repeatable; fields: name, state, city,
             website or one of ours, e.g. --filter buyer_intel_status= (never enriched)
  --limit    queue at most N accounts (ends the run)
  --dry-run  print the estimate only
  --restart  forget a saved run with the same --crm and --filter and start over`,
  options: {
    crm: { type: 'string' },
    filter: { type: 'string', multiple: true },
    limit: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    restart: { type: 'boolean', default: false },
  },
  async run(values) {
    if (values.crm === undefined) throw new UsageError(`--crm ${crmChoices()} is required`);
    const rawFilters = (values as Record<string, unknown>).filter;
    let filters: AccountFilter[];
    try {
      filters = (Array.isArray(rawFilters) ? rawFilters : []).map((f) => parseFilter(String(f)));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const limit = values.limit === undefined ? undefined : numberOption(values, 'limit', 0);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
      throw new UsageError('--limit must be a whole number ≥ 1');

    const env = loadEnv();
    const settings = await settingsFromEnv(env);
    const { crm, tenant } = crmConnection(values.crm, settings);
    await requireRedis(settings.redisUrl);
    const service = createService(settings);
    const redis = createRedis(settings.redisUrl, 'worker');
    try {
      const connector = service.connector(crm, tenant);
      const key = backfillStateKey(settings.prefix, connector, filters);
      const saved = values.restart ? null : await readBackfillState(redis, key);
      if (saved && !saved.done) {
        process.stdout.write(
          `Resuming backfill ${saved.runId}: ${saved.enqueued} accounts already queued (${saved.scanned} read).\n`,
        );
      }
      const estimate = await estimateBackfill(connector, filters, limit);
      process.stdout.write(
        `Estimate for ${crm} ${tenant}: ${estimate.accounts} accounts, ~${estimate.buyerIntelCalls} Buyer Intelligence calls, ~${estimate.crmCalls} ${crm} calls.\n`,
      );
      if (values['dry-run']) {
        process.stdout.write('Dry run: nothing queued.\n');
        return 0;
      }
      const total = Math.max(estimate.accounts, saved && !saved.done ? saved.enqueued : 0);
      const progress = progressPrinter(total);
      const state = await runBackfill({
        connector,
        queue: service.queue,
        redis,
        prefix: settings.prefix,
        filters,
        ...(limit === undefined ? {} : { limit }),
        attempts: settings.worker.attempts,
        restart: values.restart === true,
        onProgress: progress,
      });
      progress(state, true);
      process.stdout.write(
        `Queued ${state.enqueued} accounts of ${state.scanned} read (run ${state.runId}); the workers enrich them at the lowest priority.\n`,
      );
      return 0;
    } finally {
      redis.disconnect();
      await service.close();
    }
  },
};

/** A bar on a terminal; otherwise a line every tenth of the way, for logs. */
function progressPrinter(total: number) {
  let lastTenth = -1;
  return (state: BackfillState, final = false) => {
    const share = total ? Math.min(1, state.enqueued / total) : 1;
    if (process.stderr.isTTY) {
      const width = 30;
      const filled = Math.round(share * width);
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${state.enqueued}/${total} queued${final ? '\n' : ''}`,
      );
      return;
    }
    const tenth = Math.floor(share * 10);
    if (tenth !== lastTenth || final) {
      lastTenth = tenth;
      process.stderr.write(`backfill: ${state.enqueued}/${total} queued\n`);
    }
  };
}
