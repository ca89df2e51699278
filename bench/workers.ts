// Worker processes of the enrichment benches (bench/worker-process.ts: the service's worker role built
// from the same settings), with their CPU time and RSS sampled on demand over IPC.
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendProbeExecArgv } from './send-probe-flags.ts';

/**
 * The worker's heap settings, as docker-compose.yml runs it (test/docker/compose.unit.test.ts keeps the two
 * equal), picked from the heap curve (`--only heap-curve`, bench/README.md): a 384-MB old generation
 * and 16-MB semi-spaces cost ~30 % less worker CPU per account than the former 144 MB / 4 MB (the young
 * generation collected 4× as often, the old one kept near its cap) for ~40 MB more RSS. The least CPU
 * with a peak RSS that leaves room under 400 MB. BENCH_WORKER_NODE_OPTIONS replaces them.
 */
export const WORKER_NODE_FLAGS = ['--max-old-space-size=384', '--max-semi-space-size=16'];

/**
 * The worker's environment beyond its settings, as docker-compose.yml gives it: glibc's malloc keeps
 * at most two arenas (by default up to 8 per core, one per thread that allocates: libuv's pool, V8's
 * helpers), which left ~10 MB less RSS at start and at peak in the bench.
 */
export const WORKER_ENV = { MALLOC_ARENA_MAX: '2' };

/**
 * Node's compile cache, warm as the image ships it (Dockerfile: NODE_COMPILE_CACHE, filled at build by
 * `src/cli.ts --help`): the workers start without loading Node's TypeScript stripper or compiling
 * what the cache holds. Warmed here the same way, plus the bench's own worker entry, once per bench.
 */
const COMPILE_CACHE = join(tmpdir(), 'buyer-intel-sync-bench-compile-cache');
/**
 * The worker's Node flags. V8 keeps its compiled code per set of the flags that change code (--expose-gc
 * is one), so the warm-up runs with them too.
 */
const workerExecArgv = (heapFlags = workerHeapFlags()) => [
  ...process.execArgv,
  // --expose-gc only lets liveHeapMb() collect on demand; it changes nothing else about the heap.
  '--expose-gc',
  ...heapFlags,
];
/** The heap flags the workers get unless a run names its own (the heap curve's). */
export const workerHeapFlags = () =>
  process.env.BENCH_WORKER_NODE_OPTIONS?.split(' ').filter(Boolean) ?? WORKER_NODE_FLAGS;
const warmed = new Set<string>();
function warmCompileCache(heapFlags: readonly string[]): void {
  const key = heapFlags.join(' ');
  if (warmed.has(key)) return;
  warmed.add(key);
  const env = { ...process.env, NODE_COMPILE_CACHE: COMPILE_CACHE };
  const root = new URL('../', import.meta.url).pathname;
  const run = (args: string[]) =>
    execFileSync(process.execPath, [...workerExecArgv([...heapFlags]), ...args], {
      cwd: root,
      env,
      stdio: 'ignore',
    });
  run(['src/cli.ts', '--help']);
  // Without its settings the entry exits 2 at once, once compiled.
  try {
    run(['bench/worker-process.ts']);
  } catch {}
}

export interface WorkerSample {
  /** User + system CPU time of the process since it started. */
  cpuMs: number;
  rssMb: number;
  /** The largest RSS seen (sampled every 50 ms) since it started. */
  peakRssMb: number;
  /** PostgreSQL statements the process sent since it started (bench/pg-cost.ts). */
  statements: number;
}

/** The last sample, the provider cache's counters and the statements of the whole run by kind. */
export type Stopped = WorkerSample & {
  cache: Record<string, number> | null;
  statementsByKind?: Record<string, number>;
};

export interface WorkerHandle {
  child: ChildProcess;
  /** Once built and started, before any job. */
  ready: WorkerSample;
  sample(): Promise<WorkerSample>;
  /** The heap still reachable after a full collection (MB): what the process needs, garbage apart. */
  liveHeapMb(): Promise<number>;
  stop(): Promise<Stopped>;
}

function ask<T>(child: ChildProcess, type: string, answer: string, timeoutMs = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`worker process ${child.pid} did not answer ${type} within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (m: { type?: string }) => {
      if (m?.type !== answer) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    if (type) child.send({ type });
  });
}

const pick = (m: WorkerSample): WorkerSample => ({
  cpuMs: m.cpuMs,
  rssMb: m.rssMb,
  peakRssMb: m.peakRssMb,
  statements: m.statements,
});

/** A worker process; `heapFlags` replace the default heap flags (WORKER_NODE_FLAGS). */
export async function startWorkerProcess(
  settings: unknown,
  heapFlags: readonly string[] = workerHeapFlags(),
): Promise<WorkerHandle> {
  warmCompileCache(heapFlags);
  const child = fork(new URL('./worker-process.ts', import.meta.url), [], {
    env: {
      ...process.env,
      ...WORKER_ENV,
      NODE_COMPILE_CACHE: COMPILE_CACHE,
      BENCH_SETTINGS: JSON.stringify(settings),
    },
    // BENCH_CPU_PROF=dir: a V8 CPU profile of each worker (written as it exits), to see where its time goes.
    // BENCH_SEND_PROBE=dir: when each provider request was written (bench/send-probe.ts).
    execArgv: [
      ...workerExecArgv([...heapFlags]),
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : []),
      ...sendProbeExecArgv(),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`worker process exited with ${code}`)));
  });
  exited.catch(() => undefined);
  const ready = pick(await Promise.race([ask<WorkerSample>(child, '', 'ready', 60_000), exited]));
  let stopped: Promise<Stopped> | undefined;
  return {
    child,
    ready,
    sample: async () => pick(await ask<WorkerSample>(child, 'sample', 'sample')),
    liveHeapMb: async () => (await ask<{ liveHeapMb: number }>(child, 'live', 'live')).liveHeapMb,
    stop: () => {
      stopped ??= (async () => {
        if (child.exitCode !== null || !child.connected) throw new Error('worker process is gone');
        try {
          // Closing waits for the accounts in flight (up to WORKER_CONCURRENCY): on a loaded machine, long.
          return await ask<Stopped>(child, 'stop', 'stopped', 120_000);
        } catch (err) {
          child.kill('SIGKILL');
          throw err;
        }
      })();
      return stopped;
    },
  };
}
