// Runs `buyer-intel-sync` with exactly the environment given (plus PATH, REDIS_URL and, unless the test
// names one, the file's database) and resolves with its exit code and output: `runCli` as the real
// binary in a child process (optionally fed standard input), `runCliInProcess` through the CLI's own
// `main` in this process, ~1 s of Node start and imports cheaper a run — for what a real process adds
// nothing to (no signals, no exit of the process, no launcher or engine checks, no standard input) —
// and `runInProcess` the same way for another program of the same runner.
import { spawn } from 'node:child_process';
import { onRelease } from './release.ts';
import { sharedDatabase, type TestDatabase } from './test-database.ts';

export const CLI_PATH = new URL('../../src/cli.ts', import.meta.url).pathname;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

let fileDatabase: Promise<TestDatabase> | undefined;
/**
 * The database this test file's CLI runs use unless a test names its own: one for the whole file, on
 * TEST_DATABASE_URL's server where there is one (test-database.ts says why), else an embedded one in a
 * directory of its own. Without it each CLI would open the default `.data/pglite` of the clone, which
 * serves one process at a time: a CLI of another test file running at the same moment was refused.
 */
export const cliDatabase = (): Promise<TestDatabase> => {
  if (!fileDatabase) {
    fileDatabase = sharedDatabase();
    onRelease(() => {
      fileDatabase = undefined;
    });
  }
  return fileDatabase;
};

/** The environment a run sees: the given one, over PATH, REDIS_URL and the file's database. */
async function runEnv(env: Record<string, string>): Promise<Record<string, string>> {
  const database = 'DATABASE_URL' in env || 'PGLITE_DIR' in env ? {} : (await cliDatabase()).env;
  return {
    PATH: process.env.PATH ?? '',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    ...database,
    ...env,
  };
}

export async function runCli(args: string[], env: Record<string, string>, stdin = ''): Promise<CliRun> {
  const childEnv = await runEnv(env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { env: childEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

let inProcessRun = false;

/** A stand-in for a stream's `write` that appends to a string; calls back as a stream would. */
function capture(append: (text: string) => void): typeof process.stdout.write {
  return ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (callback) queueMicrotask(callback);
    return true;
  }) as typeof process.stdout.write;
}

/**
 * The CLI's `main` in this process: for the run, process.env is the run's environment alone and
 * process.stdout and process.stderr are captured, so a command sees what the binary's would. Commands
 * read both at call time; one run at a time (a file's tests run in turn), and a test that needs the
 * real process — a signal, standard input, the process exiting — uses `runCli`.
 */
export function runCliInProcess(args: string[], env: Record<string, string>): Promise<CliRun> {
  return runInProcess(env, async () => {
    const { main } = await import('../../src/cli/main.ts');
    return () => main(args);
  });
}

/**
 * A run of what `load` returns, resolving with an exit code, as runCliInProcess runs `main`: for
 * another program on the same runner (src/cli/command.ts's runCli), such as the emulators' dev
 * commands (emulators/cli.ts). `load` imports before the environment is the run's.
 */
export async function runInProcess(
  env: Record<string, string>,
  load: () => Promise<() => Promise<number>>,
): Promise<CliRun> {
  if (inProcessRun)
    throw new Error(
      'runCliInProcess: an earlier run in this worker has not finished (did its test time out?); one at a time, as it borrows process.env and stdout',
    );
  inProcessRun = true;
  const saved = { env: process.env, out: process.stdout.write, err: process.stderr.write };
  let stdout = '';
  let stderr = '';
  try {
    const runEnvironment = await runEnv(env);
    const run = await load();
    process.env = runEnvironment;
    process.stdout.write = capture((t) => {
      stdout += t;
    });
    process.stderr.write = capture((t) => {
      stderr += t;
    });
    const code = await run();
    return { code, stdout, stderr };
  } finally {
    process.env = saved.env;
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    inProcessRun = false;
  }
}

/** The variables that point the CLI at the Buyer Intelligence sandbox and a HubSpot emulator. */
export function sandboxCliEnv(
  bi: { url: string; token: string },
  hs?: { url: string; accessToken: string; portalId: string | number; clientSecret: string },
): Record<string, string> {
  return {
    BUYER_INTEL_BASE_URL: bi.url,
    BUYER_INTEL_TOKEN: bi.token,
    ...(hs
      ? {
          HUBSPOT_BASE_PATH: hs.url,
          HUBSPOT_ACCESS_TOKEN: hs.accessToken,
          HUBSPOT_PORTAL_ID: String(hs.portalId),
          HUBSPOT_CLIENT_SECRET: hs.clientSecret,
        }
      : {}),
  };
}
