// A tiny command registry on node:util parseArgs: every command has --help, and exit codes are
// 0 ok, 1 failure, 2 usage.
import { type ParseArgsConfig, parseArgs } from 'node:util';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Command<O extends Options = Options> {
  name: string;
  summary: string;
  usage: string;
  options: O;
  /** Resolves with the exit code; long-running commands resolve when they stop. */
  run(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number>;
}

export function parse(command: Command, argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function numberOption(values: Record<string, unknown>, name: string, fallback: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(n)) {
    throw new UsageError(`--${name} must be a number, got "${String(raw)}"`);
  }
  return n;
}

function help(program: string, commands: Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `Usage: ${program} <command> [options]`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Run \`${program} <command> --help\` for a command’s options.`,
  ].join('\n');
}

/**
 * Dispatches argv to one of `commands` and resolves with the exit code. Shared by the product's CLI and
 * the emulators' dev CLI so both answer --help, usage errors and failures the same way.
 */
export async function runCli(program: string, commands: Command[], argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help(program, commands)}\n`);
    return name ? 0 : EXIT_USAGE;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`${program}: unknown command "${name}"\n\n${help(program, commands)}\n`);
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
      process.stderr.write(`${program} ${name}: ${err.message}\n(see ${program} ${name} --help)\n`);
      return EXIT_USAGE;
    }
    process.stderr.write(`${program} ${name}: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  }
}
