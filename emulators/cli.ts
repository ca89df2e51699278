#!/usr/bin/env node
// The dev-only commands that run the emulators (`npm run demo`, `npm run sandbox`). They live outside
// src/ so the product neither builds nor ships the emulators; the runner is the product's, so --help,
// exit codes and error lines are the same as `buyer-intel-sync`'s.
import { runCli } from '../src/cli/command.ts';
import { demoCommand } from './cli/demo.ts';
import { sandboxCommand } from './cli/sandbox.ts';

const code = await runCli('buyer-intel-sync', [demoCommand, sandboxCommand], process.argv.slice(2));
// A failure that escaped a command's awaits settles the run with 1 while the command may still hold
// servers open: exit then rather than wait on them.
if (code !== 0) process.exit(code);
process.exitCode = code;
