// `buyer-intel-sync undo`: takes back what a run, a job or an account's last change wrote (src/undo/),
// in this process, after a --dry-run that shows exactly what it would change and keep. Interrupted
// (Ctrl-C, a kill), the same command resumes the same undo run.
import { isCrmKind } from '../../connectors/registry.ts';
import { loadEnv } from '../config/env.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import { isRunId } from '../store/runs.ts';
import { resolveUndo, type UndoTarget } from '../undo/target.ts';
import { previewUndo, runUndo } from '../undo/undo.ts';
import { type CommandBody, EXIT_FAILURE, UsageError } from './command.ts';
import { crmChoices, crmConnection, tenantConnection } from './crm-option.ts';
import { operatorName } from './operator.ts';
import { undoProgress } from './progress.ts';
import { requireRedis } from './redis-check.ts';
import { renderOutcome, renderPreview } from './undo-report.ts';

/** What a shell reports for a command stopped by Ctrl-C. */
const EXIT_INTERRUPTED = 130;
const RECORD_ID = /^[A-Za-z0-9_-]{1,64}$/;

function targetOf(values: Record<string, string | boolean | undefined>): UndoTarget {
  const given = ['run', 'job', 'account'].filter((k) => values[k] !== undefined);
  if (given.length !== 1)
    throw new UsageError('give one of --run <id>, --job <id> or --crm <crm> --account <id>');
  if (values.run !== undefined) {
    const runId = String(values.run);
    if (!isRunId(runId)) throw new UsageError(`--run: "${runId}" is not a run id (digits)`);
    if (values.crm !== undefined || values.tenant !== undefined)
      throw new UsageError('--crm and --tenant go with --account');
    return { kind: 'run', runId };
  }
  if (values.job !== undefined) {
    const jobId = String(values.job).trim();
    if (!jobId || jobId.length > 200) throw new UsageError('--job needs a job id');
    if (values.crm !== undefined || values.tenant !== undefined)
      throw new UsageError('--crm and --tenant go with --account');
    return { kind: 'job', jobId };
  }
  const accountId = String(values.account).trim();
  if (!RECORD_ID.test(accountId)) throw new UsageError('--account needs a CRM record id');
  if (typeof values.crm !== 'string' || !isCrmKind(values.crm))
    throw new UsageError(`--crm ${crmChoices()} is required with --account`);
  const tenant = values.tenant === undefined ? undefined : String(values.tenant);
  if (tenant !== undefined && !RECORD_ID.test(tenant))
    throw new UsageError('--tenant must be a portal id or org id');
  return { kind: 'account', crm: values.crm, accountId, tenant };
}

export const undoCommand: CommandBody = {
  usage: `buyer-intel-sync undo --run <id> | --job <id> | --crm ${crmChoices()} --account <id> [--tenant <id>]
                       (--dry-run | --yes [--wait])

Each field we wrote goes back to the value it had before — only where the CRM still holds the
value we wrote: a person's later edit is kept, and reported — and the notes we created are removed
(HubSpot archives them; Salesforce moves Tasks and ContentNotes to its recycle bin). Our match
fields (buyer id, status, confidence, reason...) are restored the same way. --account takes back
that account's last change that was not itself an undo.

The undo is itself a run (buyer-intel-sync runs show <id>), whose writes go on the history: it can
be undone in turn (undo --run <its id>). A whole run goes a batch at a time, through the same call
budgets and retries as every write; interrupted (Ctrl-C, a kill), the same command resumes it and
never writes an account twice. An undo of writes already taken back changes nothing.

  --dry-run  print exactly what it would change and what it would keep, with counts; write nothing
  --yes      undo (required to write)
  --wait     another process runs the same undo: wait for it and report the run (without --wait
             the command names that process and exits 1)
  --tenant   the account's portal or org id, when several share the account id (one the
             configuration names or one stored with \`tenants add\` or an install)

Progress goes to stderr. Exit codes: 0 done, 1 failed (or accounts the CRM refused for now: run the
same command again), 2 bad usage, 130 interrupted (run the same command to resume).`,
  options: {
    run: { type: 'string' },
    job: { type: 'string' },
    crm: { type: 'string' },
    account: { type: 'string' },
    tenant: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    yes: { type: 'boolean', default: false },
    wait: { type: 'boolean', default: false },
  },
  async run(values, positionals) {
    if (positionals.length) throw new UsageError(`unexpected ${positionals.join(' ')}`);
    const target = targetOf(values);
    const dryRun = values['dry-run'] === true;
    if (dryRun && values.yes === true) throw new UsageError('--dry-run and --yes: choose one');
    if (!dryRun && values.yes !== true)
      throw new UsageError(
        'undo writes to the CRM: add --yes (see first what it would change with --dry-run)',
      );

    const settings = await settingsFromEnv(loadEnv());
    // The CRM is checked against the configuration; the tenant comes from the history unless given.
    if (target.kind === 'account' && target.tenant === undefined) crmConnection(target.crm, settings);
    await requireRedis(settings.redisUrl, settings.prefix);
    const service = createService(settings);
    const interrupt = new AbortController();
    const onSigint = () => {
      if (interrupt.signal.aborted) process.exit(EXIT_INTERRUPTED);
      interrupt.abort();
    };
    const progress = target.kind === 'run' ? undoProgress({ planning: dryRun }) : undefined;
    try {
      // What the history names may be any tenant, stored ones too: every connection is served. A
      // --tenant is one of them, in its canonical form (the history's).
      const named =
        target.kind === 'account' && target.tenant !== undefined
          ? { ...target, tenant: (await tenantConnection(target, settings, service)).tenant }
          : undefined;
      if (!named) await service.loadTenants();
      const repos = await service.store.open();
      const resolved = await resolveUndo(repos, named ?? target);
      const deps = {
        store: service.store,
        connectorFor: service.connector,
        ledgers: service.deps.ledgers,
        locks: service.accountLocks,
      };
      const zero = { restored: 0, skipped: 0, notesRemoved: 0, failed: 0 };
      if (dryRun) {
        const preview = await previewUndo(deps, resolved, {
          onProgress: (done, total) => progress?.update({ done, total, ...zero }),
        });
        progress?.stop();
        process.stdout.write(renderPreview(preview));
        return 0;
      }
      process.on('SIGINT', onSigint);
      const outcome = await runUndo(deps, resolved, {
        actor: operatorName(),
        signal: interrupt.signal,
        wait: values.wait === true,
        onProgress: ({ done, total, counts }) => progress?.update({ done, total, ...counts }),
      });
      progress?.stop();
      if (outcome.resumed) process.stdout.write(`Resumed undo run ${outcome.runId}.\n`);
      process.stdout.write(renderOutcome(outcome));
      if (outcome.interrupted) {
        process.stdout.write(`Interrupted: run the same command to resume undo run ${outcome.runId}.\n`);
        return EXIT_INTERRUPTED;
      }
      if (outcome.pending) {
        process.stderr.write(
          `buyer-intel-sync undo: ${outcome.pending} accounts refused by the CRM for now: run the same command to finish undo run ${outcome.runId}\n`,
        );
        return EXIT_FAILURE;
      }
      return 0;
    } finally {
      progress?.stop();
      process.off('SIGINT', onSigint);
      await service.close();
    }
  },
};
