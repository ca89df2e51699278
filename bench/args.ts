// The bench scripts' flags, parsed one way: `--help` (`-h`) prints every option with what it does and
// its default, from the same config that parses them (so the text cannot miss an option or show a stale
// default), and exits 0; a flag the script does not take, or one missing its value, is one line naming
// it and pointing at --help, exit 2 — not node's TypeError with its stack.
import { relative } from 'node:path';
import { type ParseArgsOptionDescriptor, parseArgs } from 'node:util';

export type BenchOption = ParseArgsOptionDescriptor & {
  /** One line: what the option does (its default is printed after it). */
  describe: string;
  /** What the value looks like in the usage text, e.g. `<n>` (default `<value>`; none for a boolean). */
  value?: string;
};

export interface BenchCommand<T extends Record<string, BenchOption>> {
  /** How it is run, e.g. `node bench/run.ts [options]`. */
  usage: string;
  /** A sentence or two on what it measures. */
  summary: string;
  options: T;
}

/** The command as written, its option types kept exact (a flag with a default is never undefined). */
export function benchCommand<const T extends Record<string, BenchOption>>(command: BenchCommand<T>) {
  return command;
}

const shownDefault = (o: BenchOption): string => {
  if (o.default === undefined) return '';
  if (o.type === 'boolean') return o.default ? ' (default on)' : ' (default off)';
  const value = Array.isArray(o.default) ? o.default.join(',') : String(o.default);
  return value === '' ? ' (default none)' : ` (default ${value})`;
};

/** The usage text: one line per option, `--name <value>  what it does (default …)`. */
export function usageText(command: BenchCommand<Record<string, BenchOption>>): string {
  const rows: [string, string][] = Object.entries(command.options).map(([name, o]) => [
    `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.value ?? '<value>'}` : ''}`,
    `${o.describe}${shownDefault(o)}`,
  ]);
  rows.push(['-h, --help', 'print this text and exit']);
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  const lines = rows.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`);
  return `Usage: ${command.usage}\n\n${command.summary}\n\nOptions:\n${lines.join('\n')}\n`;
}

/** node's message for a flag it refused, as one line: the flag named, the rest dropped. */
function refusal(err: Error & { code?: string }): string {
  const named = /'([^']+)'/.exec(err.message)?.[1];
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && named) return `unknown option ${named}`;
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && named) return `unexpected argument ${named}`;
  return (err.message.split(/\.\s/)[0] ?? err.message).replace(/\.$/, '');
}

/**
 * The script's flags as `parseArgs` gives them. `--help` prints the usage and exits 0; a refused flag
 * prints one line to stderr and exits 2.
 */
export function benchArgs<const T extends Record<string, BenchOption>>(
  command: BenchCommand<T>,
  args: string[] = process.argv.slice(2),
) {
  const help = { type: 'boolean', short: 'h' } as const;
  const config = {
    options: { ...command.options, help },
    args,
    strict: true,
    allowPositionals: false,
  } as const;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (err) {
    const e = err as Error & { code?: string };
    if (!e.code?.startsWith('ERR_PARSE_ARGS_')) throw err;
    const script = relative(process.cwd(), process.argv[1] ?? 'bench');
    console.error(`${script}: ${refusal(e)} (see node ${script} --help)`);
    process.exit(2);
  }
  // The values' type is resolved where T is known, not in here.
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usageText(command));
    process.exit(0);
  }
  return parsed;
}
