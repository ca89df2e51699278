#!/usr/bin/env node
// buyer-intel-sync: one binary, one subcommand per role.
import { backfillCommand } from './cli/backfill.ts';
import { type Command, EXIT_FAILURE, EXIT_USAGE, parse, UsageError } from './cli/command.ts';
import { demoCommand } from './cli/demo.ts';
import { digestCommand } from './cli/digest.ts';
import { doctorCommand } from './cli/doctor.ts';
import { enrichCommand } from './cli/enrich.ts';
import { sandboxCommand } from './cli/sandbox.ts';
import { serveCommand } from './cli/serve.ts';
import { setupCommand } from './cli/setup.ts';
import { startCommand } from './cli/start.ts';
import { tenantsCommand } from './cli/tenants.ts';
import { workerCommand } from './cli/worker.ts';

const COMMANDS: Command[] = [
  startCommand,
  serveCommand,
  workerCommand,
  doctorCommand,
  demoCommand,
  sandboxCommand,
  setupCommand,
  enrichCommand,
  backfillCommand,
  digestCommand,
  tenantsCommand,
];

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: buyer-intel-sync <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `buyer-intel-sync <command> --help` for a command’s options.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help()}\n`);
    return name ? 0 : EXIT_USAGE;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`buyer-intel-sync: unknown command "${name}"\n\n${help()}\n`);
    return EXIT_USAGE;
  }
  try {
    const { values, positionals } = parse(command, rest);
    if (values.help) {
      process.stdout.write(`${command.usage}\n`);
      return 0;
    }
    return await command.run(values as Record<string, string | boolean | undefined>, positionals);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(
        `buyer-intel-sync ${name}: ${err.message}\n(see buyer-intel-sync ${name} --help)\n`,
      );
      return EXIT_USAGE;
    }
    process.stderr.write(`buyer-intel-sync ${name}: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  }
}

process.exitCode = await main(process.argv.slice(2));
