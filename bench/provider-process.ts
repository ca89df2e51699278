// The Buyer Intelligence emulator of the backfill benches, in a process of its own, as a provider's
// edge is. Its token bucket counts a request when its handler runs: sharing the bench's event loop, it
// counted them when that loop was free. The bench's own work (queueing 500 accounts, the CRM
// emulator's batches and their schema checks, its polls) stalled that loop 0.4–2 s at load ~7, and the
// requests of those seconds met the bucket together: at burst 1, 25 refused within 8 ms, 4–6 % of a
// run's calls, for the emulator's stall and not for the service's pace (issue #42). Counts and
// faults go through the emulator's own control plane (`/__sandbox/stats`, `/__sandbox/faults`).
//
// Run by the parent with `--child` and BENCH_PROVIDER (JSON): builds the same data set from its seed,
// `now` and size, listens, and tells the parent its address over IPC.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FaultSettings } from '../emulators/shared/faults.ts';
import type { CallCounts } from './calls.ts';
import { sendProbeExecArgv } from './send-probe-flags.ts';

export interface ProviderProcessOptions {
  dataset: { seed: number; now: string; buyerCount: number };
  rateLimit: { ratePerSecond: number; burst: number };
  faults: Partial<FaultSettings>;
}

export interface ProviderProcess {
  url: string;
  token: string;
  /** The calls answered so far, by operation and status (reads the emulator's counts). */
  calls(): Promise<CallCounts>;
  resetCalls(): Promise<void>;
  setFaults(faults: Partial<FaultSettings>): Promise<void>;
  close(): Promise<void>;
}

interface Ready {
  url: string;
  token: string;
  buyers: number;
  firstBuyerId: string | undefined;
}

const SELF = fileURLToPath(import.meta.url);

/** Starts the emulator in its own process; its data set must be the one the parent's accounts came from. */
export async function startProviderProcess(
  options: ProviderProcessOptions,
  expect: { buyers: number; firstBuyerId: string | undefined },
): Promise<ProviderProcess> {
  const child = fork(SELF, ['--child'], {
    env: { ...process.env, BENCH_PROVIDER: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [
      ...(process.env.BENCH_PROVIDER_PROF
        ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROVIDER_PROF]
        : []),
      ...sendProbeExecArgv(),
    ],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('exit', (code) =>
      reject(new Error(`the provider emulator's process exited (${code}) before listening`)),
    );
  });
  const kill = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  if (ready.buyers !== expect.buyers || ready.firstBuyerId !== expect.firstBuyerId) {
    await kill();
    throw new Error('the provider process built another data set than the bench accounts came from');
  }
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${ready.url}/__sandbox${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`provider control ${method} ${path}: ${res.status}`);
    return res.status === 204 ? undefined : res.json();
  };
  return {
    url: ready.url,
    token: ready.token,
    calls: async () => ((await control('GET', '/stats')) as { byOperation: CallCounts }).byOperation,
    resetCalls: async () => void (await control('DELETE', '/stats')),
    setFaults: async (faults) => void (await control('PUT', '/faults', faults)),
    close: kill,
  };
}

async function child(): Promise<void> {
  const { buildDataset } = await import('../emulators/buyer-intel/data/dataset.ts');
  const { startBuyerIntelSandbox } = await import('../emulators/buyer-intel/server.ts');
  const { prepareSearch } = await import('../emulators/buyer-intel/search.ts');
  const o = JSON.parse(process.env.BENCH_PROVIDER ?? 'null') as ProviderProcessOptions;
  const dataset = buildDataset({ ...o.dataset, now: new Date(o.dataset.now) });
  // Ready before the first request, as a provider is: not a stall on the first search.
  prepareSearch(dataset);
  const bi = await startBuyerIntelSandbox({ dataset, rateLimit: o.rateLimit, faults: o.faults });
  const ready: Ready = {
    url: bi.url,
    token: bi.token,
    buyers: dataset.buyers.length,
    firstBuyerId: dataset.buyers[0]?.id,
  };
  process.send?.(ready);
  const stop = () => void bi.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('disconnect', stop);
}

if (process.argv[2] === '--child') void child();
