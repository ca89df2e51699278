// Runs the real `buyer-intel-sync` binary as a child process with exactly the environment given (plus
// PATH, REDIS_URL and, unless the test names one, the file's database), optionally feeding standard
// input; resolves with its exit code and output.
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

export async function runCli(args: string[], env: Record<string, string>, stdin = ''): Promise<CliRun> {
  const database = 'DATABASE_URL' in env || 'PGLITE_DIR' in env ? {} : (await cliDatabase()).env;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        ...database,
        ...env,
      },
    });
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
