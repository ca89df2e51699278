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
