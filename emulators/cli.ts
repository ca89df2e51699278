#!/usr/bin/env node
// The dev-only commands that run the emulators (`npm run demo`, `npm run sandbox`). They live outside
// src/ so the product neither builds nor ships the emulators; the runner is the product's, so --help,
// exit codes and error lines are the same as `buyer-intel-sync`'s.
import { runCli } from '../src/cli/command.ts';
import { demoCommand } from './cli/demo.ts';
import { sandboxCommand } from './cli/sandbox.ts';

process.exitCode = await runCli('buyer-intel-sync', [demoCommand, sandboxCommand], process.argv.slice(2));
