// A tiny command registry on node:util parseArgs: every command has --help and --verbose, exit codes
// are 0 ok, 1 failure, 2 usage, and a failure is one line on stderr (its stack only with --verbose).
import { readFileSync } from 'node:fs';
import { inspect, type ParseArgsConfig, parseArgs } from 'node:util';
import { ConfigError } from '../config/config-error.ts';
import { redact, secretsOf } from '../shared/secrets.ts';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Command<O extends Options = Options> {
  name: string;
  summary: string;
  /**
   * The --help text, or what builds it: a command whose text names what only a heavy module knows
   * (the CRMs' registry, ~1 s of imports) builds it on --help alone, so a bad argument is answered
   * before anything heavy loads.
   */
  usage: string | (() => Promise<string>);
  options: O;
  /**
   * A one-shot command that must not outlive this (ms): past it, it fails with one line instead of
   * waiting on a dependency that stopped answering mid-way.
   */
  deadlineMs?: number;
  /** Resolves with the exit code; long-running commands resolve when they stop. */
  run(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number>;
}

/** What a command's module exports: its name and summary are the registry's (main.ts). */
export type CommandBody = Omit<Command, 'name' | 'summary'>;

/** A command the help lists, whose module is imported only to run it. */
export interface LazyCommand {
  name: string;
  summary: string;
  load(): Promise<CommandBody>;
}

export type CommandEntry = Command | LazyCommand;

export const lazy = (name: string, summary: string, load: () => Promise<CommandBody>): LazyCommand => ({
  name,
  summary,
  load,
});

export function parse(command: Command, argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(parseArgsProblem(err));
  }
}

/** parseArgs' own text (a hint with an unbalanced quote, several lines) as one short phrase. */
function parseArgsProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown }).code;
  const option = /'(-[^' ]*)/.exec(message)?.[1];
  if (option && code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option}`;
  if (option && code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (/does not take an argument/.test(message)) return `${option} takes no value`;
    if (/ambiguous/.test(message))
      return `${option} needs a value (one starting with "-" is written ${option}=-…)`;
    return `${option} needs a value`;
  }
  return message.split('\n')[0] ?? message;
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

function help(program: string, commands: readonly CommandEntry[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `Usage: ${program} <command> [options]`,
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    `Run \`${program} <command> --help\` for a command’s options, \`${program} --version\` for its version.`,
    'Every command also takes --verbose (a failure’s stack trace, not only its one line).',
  ].join('\n');
}

/**
 * The version in our package.json: two folders up in a clone (src/cli/), three in the built package
 * (dist/src/cli/); the first package.json up the tree that is ours.
 */
export function packageVersion(): string {
  for (let dir = new URL('.', import.meta.url); dir.pathname !== '/'; dir = new URL('..', dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'buyer-intel-sync' && pkg.version) return pkg.version;
    } catch {
      // No package.json here (or not JSON): look one folder up.
    }
  }
  return 'unknown';
}

/** `--verbose` is global: accepted before or after the command name, never passed to a command. */
function takeVerbose(argv: string[]): { verbose: boolean; args: string[] } {
  const end = argv.indexOf('--');
  const options = end === -1 ? argv : argv.slice(0, end);
  const rest = end === -1 ? [] : argv.slice(end);
  const args = options.filter((a) => a !== '--verbose');
  return { verbose: args.length !== options.length, args: [...args, ...rest] };
}

/** A failure as one line: ConfigError keeps its list of problems (one per line, by design). */
export function failureText(err: unknown): string {
  if (err instanceof ConfigError) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s*\n\s*/g, ' ').trim() || (err instanceof Error ? err.name : 'failed');
}

/**
 * Writes a failure that escaped a command: one line, and with --verbose the stack and causes. Neither
 * holds a secret of the environment: a library's error (a request's options, a connection string)
 * can carry one that no message of ours would, above all in what --verbose inspects.
 */
export function reportFailure(prefix: string, err: unknown, verbose: boolean): void {
  const secrets = secretsOf(process.env);
  process.stderr.write(`${redact(`${prefix}: ${failureText(err)}`, secrets)}\n`);
  if (verbose) process.stderr.write(`${redact(inspect(err, { depth: 6 }), secrets)}\n`);
}

function runWithin(command: Command, run: () => Promise<number>): Promise<number> {
  const ms = command.deadlineMs;
  if (ms === undefined) return run();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const seconds = Math.round(ms / 1000);
      reject(new Error(`did not finish within ${seconds} s: a dependency (Redis, an API) stopped answering`));
    }, ms);
  });
  return Promise.race([run(), deadline]).finally(() => clearTimeout(timer));
}

/**
 * Dispatches argv to one of `commands` and resolves with the exit code. Shared by the product's CLI and
 * the emulators' dev CLI so both answer --help, usage errors and failures the same way.
 */
export async function runCli(
  program: string,
  commands: readonly CommandEntry[],
  argv: string[],
): Promise<number> {
  const { verbose, args } = takeVerbose(argv);
  const [name, ...rest] = args;
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`${program} ${packageVersion()}\n`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${help(program, commands)}\n`);
    return name ? 0 : EXIT_USAGE;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(
      `${program}: unknown command "${name}" (commands: ${commands.map((c) => c.name).join(', ')}; see ${program} --help)\n`,
    );
    return EXIT_USAGE;
  }
  // Whatever escapes the command's own awaits (an 'error' event, a stray rejection) still ends as one
  // line and exit 1: it settles the run as a failure instead of exiting here, so a caller that runs the
  // CLI in its own process (the tests) gets the code back; the binary exits with it (src/cli.ts).
  let settleEscaped: (err: unknown) => void = () => {};
  const escaped = new Promise<never>((_, reject) => {
    settleEscaped = reject;
  });
  escaped.catch(() => {});
  process.on('uncaughtException', settleEscaped);
  process.on('unhandledRejection', settleEscaped);
  try {
    const command: Command =
      'load' in entry ? { name, summary: entry.summary, ...(await entry.load()) } : entry;
    const { values, positionals } = parse(command, rest);
    if (values.help) {
      const usage = typeof command.usage === 'string' ? command.usage : await command.usage();
      process.stdout.write(`${usage}\n`);
      return 0;
    }
    return await Promise.race([
      runWithin(command, () =>
        command.run(values as Record<string, string | boolean | undefined>, positionals),
      ),
      escaped,
    ]);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${program} ${name}: ${failureText(err)} (see ${program} ${name} --help)\n`);
      if (verbose) process.stderr.write(`${inspect(err)}\n`);
      return EXIT_USAGE;
    }
    reportFailure(`${program} ${name}`, err, verbose);
    return EXIT_FAILURE;
  } finally {
    process.off('uncaughtException', settleEscaped);
    process.off('unhandledRejection', settleEscaped);
  }
}
