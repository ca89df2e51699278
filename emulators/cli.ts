#!/usr/bin/env node
// The dev-only commands that run the emulators (`npm run demo`, `npm run sandbox`). They live outside
// src/ so the product neither builds nor ships the emulators; the runner is the product's, so --help,
// exit codes and error lines are the same as `buyer-intel-sync`'s.
import { type CommandBody, lazy, runCli } from '../src/cli/command.ts';
import { sandboxCommand } from './cli/sandbox.ts';

/**
 * The demo is imported only to run it: it needs the SMTP sink's `smtp-server`, a dev dependency the
 * sandbox image (emulators/Dockerfile, production dependencies only) does not hold, so `sandbox` must
 * not load it. There, `demo` says so in one line instead of a stack.
 */
async function loadDemo(): Promise<CommandBody> {
  try {
    return (await import('./cli/demo.ts')).demoCommand;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new Error(
      `the demo needs the dev dependencies (${(err as Error).message.split(' imported from')[0]}): run \`npm ci\` and \`npm run demo\` in a clone`,
    );
  }
}

const code = await runCli(
  'buyer-intel-sync',
  [
    lazy('demo', 'Run the whole product on the local sandboxes and print what it did', loadDemo),
    sandboxCommand,
  ],
  process.argv.slice(2),
);
// A failure that escaped a command's awaits settles the run with 1 while the command may still hold
// servers open: exit then rather than wait on them.
if (code !== 0) process.exit(code);
process.exitCode = code;
