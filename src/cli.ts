#!/usr/bin/env node
// buyer-intel-sync: one binary, one subcommand per role.
import { backfillCommand } from './cli/backfill.ts';
import { type Command, runCli } from './cli/command.ts';
import { demoStub, sandboxStub } from './cli/dev-only.ts';
import { digestCommand } from './cli/digest.ts';
import { doctorCommand } from './cli/doctor.ts';
import { enrichCommand } from './cli/enrich.ts';
import { historyCommand } from './cli/history.ts';
import { matchEvalCommand } from './cli/match-eval.ts';
import { migrateCommand } from './cli/migrate.ts';
import { reviewCommand } from './cli/review.ts';
import { runsCommand } from './cli/runs.ts';
import { serveCommand } from './cli/serve.ts';
import { setupCommand } from './cli/setup.ts';
import { startCommand } from './cli/start.ts';
import { tenantsCommand } from './cli/tenants.ts';
import { undoCommand } from './cli/undo.ts';
import { workerCommand } from './cli/worker.ts';

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
