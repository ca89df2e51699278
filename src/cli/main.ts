// The CLI's commands and `main`, which runs one (src/cli.ts loads this once Node's compile cache is on). Each
// command's module, and the libraries it needs (the CRMs' SDKs, BullMQ, the database), is imported
// only when that command runs: a start pays for one command, not for all of them (1.8 → 0.9–1.6 s of
// CPU here).
import { type CommandEntry, lazy, runCli } from './command.ts';
import { demoStub, sandboxStub } from './dev-only.ts';

const COMMANDS: CommandEntry[] = [
  lazy(
    'start',
    'Run the webhook receiver and an enrich worker in one process',
    async () => (await import('./start.ts')).startCommand,
  ),
  lazy(
    'serve',
    'Run the HTTP side only: webhook receivers, /api and health (no worker)',
    async () => (await import('./serve.ts')).serveCommand,
  ),
  lazy(
    'worker',
    'Run the enrich and maintenance workers only (no HTTP); scale out with more of them',
    async () => (await import('./worker.ts')).workerCommand,
  ),
  lazy(
    'doctor',
    'Check the configuration, Redis, the Buyer Intelligence API and the CRMs; one line each',
    async () => (await import('./doctor.ts')).doctorCommand,
  ),
  demoStub,
  sandboxStub,
  lazy(
    'setup',
    'Create our property group and properties in the CRM (idempotent)',
    async () => (await import('./setup.ts')).setupCommand,
  ),
  lazy(
    'migrate',
    'Apply pending database migrations and import what earlier versions kept in Redis',
    async () => (await import('./migrate.ts')).migrateCommand,
  ),
  lazy(
    'enrich',
    'Enrich one CRM account now, or show what enrichment would do (--dry-run)',
    async () => (await import('./enrich.ts')).enrichCommand,
  ),
  lazy(
    'backfill',
    'Queue enrichment of existing CRM accounts (resumable), after a cost estimate',
    async () => (await import('./backfill.ts')).backfillCommand,
  ),
  lazy(
    'review',
    'The review queue: list cohorts, bulk-approve, reject, re-search or clear accounts',
    async () => (await import('./review.ts')).reviewCommand,
  ),
  lazy(
    'runs',
    'Runs (webhook deliveries, refreshes, backfills, re-enrichments, confirms) and their outcomes',
    async () => (await import('./runs.ts')).runsCommand,
  ),
  lazy(
    'history',
    'What we changed on an account (fields old → new, notes, by run); prune old history',
    async () => (await import('./history.ts')).historyCommand,
  ),
  lazy(
    'undo',
    'Take back what a run, a job or an account’s last change wrote (--dry-run first)',
    async () => (await import('./undo.ts')).undoCommand,
  ),
  lazy(
    'match-eval',
    'Score the account → buyer matching on a CSV of accounts with known answers',
    async () => (await import('./match-eval.ts')).matchEvalCommand,
  ),
  lazy(
    'digest',
    'Run a signal digest now (they otherwise run on their schedules in the worker)',
    async () => (await import('./digest.ts')).digestCommand,
  ),
  lazy(
    'tenants',
    'Add, list or remove CRM connections kept in the database (tokens encrypted at rest)',
    async () => (await import('./tenants.ts')).tenantsCommand,
  ),
];

/**
 * Runs one command line and resolves with its exit code; it never exits the process itself, so a test
 * can run it in its own (test/helpers/cli.ts runCliInProcess). The binary exits with the code (src/cli.ts).
 */
export const main = (argv: string[]): Promise<number> => runCli('buyer-intel-sync', COMMANDS, argv);
