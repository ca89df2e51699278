// One sandbox data set per test worker (building it is the slow part), a fresh server per test file
// with rows of its own: what one file's server changes (a row's status, a row added) no later file of
// the worker sees.
import type { BuyerIntelSandboxOptions } from '../../emulators/buyer-intel/app.ts';
import { buildDataset, forkDataset, type SandboxDataset } from '../../emulators/buyer-intel/data/dataset.ts';
import { type RunningBuyerIntelSandbox, startBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { undiciCall } from '../../src/buyer-intel/http.ts';
import { BuyerIntelClient, type BuyerIntelClientOptions } from '../../src/buyer-intel/index.ts';

let shared: SandboxDataset | undefined;
export function sharedDataset(): SandboxDataset {
  shared ??= buildDataset({ seed: 42 });
  return shared;
}

export function startSandbox(options: BuyerIntelSandboxOptions = {}): Promise<RunningBuyerIntelSandbox> {
  return startBuyerIntelSandbox({ dataset: forkDataset(sharedDataset()), rateLimit: false, ...options });
}

/** A client whose retries do not wait (delays are recorded instead), unless `sleep` is given. */
export function clientFor(
  sandbox: RunningBuyerIntelSandbox,
  options: Partial<BuyerIntelClientOptions> = {},
): { client: BuyerIntelClient; sleeps: number[]; urls: string[] } {
  const sleeps: number[] = [];
  const urls: string[] = [];
  const client = new BuyerIntelClient({
    baseUrl: sandbox.url,
    token: sandbox.token,
    rateLimit: false,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    // Real HTTP over the client's own call; the wrapper only records which URLs were requested.
    fetch: (url, init) => {
      urls.push(url);
      return undiciCall(url, init);
    },
    ...options,
  });
  return { client, sleeps, urls };
}
