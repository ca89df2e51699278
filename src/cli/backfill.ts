import type { CrmKind } from '../../connectors/types.ts';
import { createRedis } from '../../queues/redis.ts';
import {
  type BackfillState,
  backfillBuyerIntelCalls,
  backfillStateKey,
  estimateBackfill,
  readBackfillState,
  runBackfill,
  signalPlanText,
} from '../backfill/backfill.ts';
import { type AccountFilter, parseFilter } from '../backfill/filter.ts';
import { loadEnv } from '../config/env.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import { followBackfill, type WaitEnd } from './backfill-follow.ts';
import { type CommandBody, EXIT_FAILURE, numberOption, UsageError } from './command.ts';
import { crmChoices, crmConnection, everyTenant, TENANT_USAGE, tenantConnection } from './crm-option.ts';
import { operatorName } from './operator.ts';
import { requireRedis } from './redis-check.ts';

export const backfillCommand: CommandBody = {
  usage: `buyer-intel-sync backfill --crm ${crmChoices()} [${TENANT_USAGE} | --all-tenants] [--filter field=value ...]
                          [--limit N] [--dry-run] [--restart] [--wait [--timeout S]]

Pages through the CRM's accounts, prints what enriching them will cost (accounts, Buyer
Intelligence calls, CRM calls), then queues them in jobs of up to BACKFILL_ACCOUNTS_PER_JOB (100)
accounts at the lowest priority, so webhook and refresh jobs always go first; the workers
(\`worker\` or \`start\`, anywhere on the same Redis) do the enriching. Killed midway, the same
command resumes after the last page it saved in Redis, and no account is queued twice.

While it runs, stderr shows the accounts queued and this run's accounts the workers finished, each
as its outcome is recorded (enriched, needs review, no match, failed: the count \`runs show\` gives),
the elapsed time, the ETA at the pace of the last minute, and what holds the workers back ("provider
throttling, N req/s" while the provider keeps the shared rate below BUYER_INTEL_RATE_PER_SECOND; the
CRM's daily allocation): bars on a terminal, otherwise a plain line every 10 seconds. Without --wait
it exits once every account is queued, with what was finished by then (0 when no worker runs); the
workers go on.

The backfill is one run in the database (DATABASE_URL, or the embedded one when no \`start\` holds
it), the same run when resumed: \`buyer-intel-sync runs show <id>\` counts its accounts' outcomes.

  --tenant   the portal or org to backfill: one the configuration names or one stored with \`tenants
             add\` or an install (its credentials are read from the database); default: the
             configuration's. Each tenant is a backfill of its own (its own run, resumed on its own)
  --all-tenants  every tenant, configured and stored (of --crm when given), one after the other,
             each its own run; --limit and --wait apply to each; exit 1 when any failed
  --filter   field=value, field!=value or field= (empty); repeatable; fields: name, state, city,
             website or one of ours, e.g. --filter buyer_intel_status= (never enriched)
  --limit    queue at most N accounts (ends the run)
  --dry-run  print the estimate only
  --restart  forget a saved run with the same --crm and --filter and start over
  --wait     after queueing, follow until the workers have finished every account of the run; Ctrl-C
             stops following (exit 130), the jobs stay queued
  --timeout  with --wait, give up when no account finished for S seconds (a run that keeps moving is
             followed however long it takes): one line says how far it got, exit 1; the workers go
             on (default: no limit)`,
  options: {
    crm: { type: 'string' },
    tenant: { type: 'string' },
    'all-tenants': { type: 'boolean', default: false },
    filter: { type: 'string', multiple: true },
    limit: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    restart: { type: 'boolean', default: false },
    wait: { type: 'boolean', default: false },
    timeout: { type: 'string' },
  },
  async run(values) {
    if (values.tenant !== undefined && values['all-tenants'])
      throw new UsageError('--tenant and --all-tenants: choose one');
    if (values.crm === undefined && values.tenant === undefined && !values['all-tenants'])
      throw new UsageError(`--crm ${crmChoices()} is required`);
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
    if (values.timeout !== undefined && !values.wait) throw new UsageError('--timeout goes with --wait');
    const timeoutS = numberOption(values, 'timeout', Number.POSITIVE_INFINITY);
    if (!(timeoutS > 0)) throw new UsageError('--timeout must be a number of seconds > 0');

    const env = loadEnv();
    const settings = await settingsFromEnv(env);
    const configured =
      values.tenant === undefined && !values['all-tenants'] ? crmConnection(values.crm, settings) : undefined;
    await requireRedis(settings.redisUrl, settings.prefix);
    const service = createService(settings);
    const redis = createRedis(settings.redisUrl, 'worker');
    // Ctrl-C once queueing started: stop after the page being queued (the same command resumes), or
    // stop following; a second Ctrl-C stops at once. Before that, nothing is lost by Node's default.
    const interrupt = new AbortController();
    const onSigint = () => {
      if (interrupt.signal.aborted) process.exit(EXIT_INTERRUPTED);
      interrupt.abort();
    };
    // One tenant's backfill: its own run, resumed on its own (the saved page is per tenant and filter).
    const backfillTenant = async ({ crm, tenant }: { crm: CrmKind; tenant: string }): Promise<number> => {
      const connector = service.connector(crm, tenant);
      const key = backfillStateKey(settings.prefix, connector, filters);
      const saved = values.restart ? null : await readBackfillState(redis, key);
      if (saved && !saved.done) {
        process.stdout.write(
          `Resuming backfill ${saved.runId}: ${saved.enqueued} accounts already queued (${saved.scanned} read).\n`,
        );
      }
      // The run is recorded before anything is queued: a database that cannot take it stops us here,
      // before the estimate reads every account.
      if (!values['dry-run']) await service.store.open();
      // A CRM rate limit (429) while listing is waited out, said on stderr, within the listing's budget.
      const patience = {
        onWait: (ms: number) =>
          process.stderr.write(`${crm} asked us to slow down: listing again in ${Math.ceil(ms / 1000)} s\n`),
      };
      const estimate = await estimateBackfill(connector, filters, limit, patience);
      // One call (the org-wide feed's first page) tells which source of signals is cheaper.
      const signalPlan = await service.planSignals(estimate.accounts);
      process.stdout.write(
        `Estimate for ${crm} ${tenant}: ${estimate.accounts} accounts, ~${backfillBuyerIntelCalls(estimate.accounts, signalPlan)} Buyer Intelligence calls (${signalPlanText(signalPlan)}), ~${estimate.crmCalls} ${crm} calls.\n`,
      );
      if (values['dry-run']) {
        process.stdout.write('Dry run: nothing queued.\n');
        return 0;
      }
      const workers = await service.backfillQueue.getWorkersCount().catch(() => null); // CLIENT LIST may be refused
      if (workers === 0)
        process.stdout.write(
          'No worker is running on this Redis: the jobs wait for one (buyer-intel-sync worker or start).\n',
        );

      process.off('SIGINT', onSigint); // one listener, however many tenants
      process.on('SIGINT', onSigint);
      const expected = Math.max(estimate.accounts, saved && !saved.done ? saved.enqueued : 0);
      const followed = followBackfill(
        {
          store: service.store,
          queue: service.backfillQueue,
          redis,
          connector,
          estimate: expected,
          prefix: settings.prefix,
          provider: settings.buyerIntel,
        },
        saved && !saved.done ? saved : null,
      );
      let state: BackfillState;
      let waited: WaitEnd | undefined;
      try {
        state = await runBackfill({
          connector,
          queue: service.backfillQueue,
          redis,
          prefix: settings.prefix,
          filters,
          ...(limit === undefined ? {} : { limit }),
          attempts: settings.worker.attempts,
          accountsPerJob: settings.worker.backfillAccountsPerJob,
          restart: values.restart === true,
          onProgress: followed.queued,
          signal: interrupt.signal,
          patience,
          signalPlan,
          store: service.store,
          expected,
          actor: operatorName(),
        });
        followed.queued(state);
        if (!interrupt.signal.aborted && values.wait)
          waited = await followed.untilFinished(interrupt.signal, timeoutS * 1000);
        else await followed.refresh();
      } finally {
        followed.stop();
      }

      const o = followed.outcomes();
      const unfinished = state.enqueued - o.finished;
      process.stdout.write(
        `Queued ${state.enqueued} accounts of ${state.scanned} read (run ${state.storeRunId}: buyer-intel-sync runs show ${state.storeRunId}).\n` +
          `Finished ${o.finished}: ${o.enriched} enriched, ${o.needs_review} needs review, ${o.no_match} no match, ${o.failed} failed.\n`,
      );
      if (interrupt.signal.aborted) {
        process.stdout.write(
          state.done
            ? `Stopped: every account is queued; the workers go on with the ${unfinished} unfinished accounts.\n`
            : 'Interrupted: run the same command to resume where it stopped.\n',
        );
        return EXIT_INTERRUPTED;
      }
      if (unfinished > 0) {
        if (waited === 'stalled') {
          const held = followed.heldBy();
          process.stderr.write(
            `buyer-intel-sync backfill: stopped progressing: ${o.finished} of ${state.enqueued} accounts finished, none for ${timeoutS} s (--timeout)${held ? ` (${held})` : ''}; the workers go on with the other ${unfinished}\n`,
          );
          return EXIT_FAILURE;
        }
        process.stdout.write(`The workers enrich the other ${unfinished} at the lowest priority.\n`);
      }
      return 0;
    };
    try {
      if (!values['all-tenants'])
        return await backfillTenant(configured ?? (await tenantConnection(values, settings, service)));
      const targets = await everyTenant(values, service);
      if (!targets.length) throw new Error('no tenant to backfill: none is configured or stored');
      let code = 0;
      for (const target of targets) {
        const one = await backfillTenant(target);
        if (one === EXIT_INTERRUPTED) return one;
        code = Math.max(code, one);
      }
      return code;
    } finally {
      process.off('SIGINT', onSigint);
      redis.disconnect();
      await service.close();
    }
  },
};

/** What a shell reports for a command stopped by Ctrl-C. */
const EXIT_INTERRUPTED = 130;
