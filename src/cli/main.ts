// The CLI's commands and their run (src/cli.ts loads this once Node's compile cache is on).
import { backfillCommand } from './backfill.ts';
import { type Command, runCli } from './command.ts';
import { demoStub, sandboxStub } from './dev-only.ts';
import { digestCommand } from './digest.ts';
import { doctorCommand } from './doctor.ts';
import { enrichCommand } from './enrich.ts';
import { historyCommand } from './history.ts';
import { matchEvalCommand } from './match-eval.ts';
import { migrateCommand } from './migrate.ts';
import { reviewCommand } from './review.ts';
import { runsCommand } from './runs.ts';
import { serveCommand } from './serve.ts';
import { setupCommand } from './setup.ts';
import { startCommand } from './start.ts';
import { tenantsCommand } from './tenants.ts';
import { undoCommand } from './undo.ts';
import { workerCommand } from './worker.ts';

const COMMANDS: Command[] = [
  startCommand,
  serveCommand,
  workerCommand,
  doctorCommand,
  demoStub,
  sandboxStub,
  setupCommand,
  migrateCommand,
  enrichCommand,
  backfillCommand,
  reviewCommand,
  runsCommand,
  historyCommand,
  undoCommand,
  matchEvalCommand,
  digestCommand,
  tenantsCommand,
];

const code = await runCli('buyer-intel-sync', COMMANDS, process.argv.slice(2));
// A failed command has said why and closed what it opened; a retry timer left in a library (jsforce
// retries a refused connection for 15 s) must not keep the process, and its exit code, waiting.
if (code !== 0) process.exit(code);
process.exitCode = code;
