// Worker processes of the enrichment benches (bench/worker-process.ts: the service's worker role built
// from the same settings), with their CPU time and RSS sampled on demand over IPC.
import { type ChildProcess, fork } from 'node:child_process';

export interface WorkerSample {
  /** User + system CPU time of the process since it started. */
  cpuMs: number;
  rssMb: number;
  /** The largest RSS seen (sampled every 50 ms) since it started. */
  peakRssMb: number;
}

export interface WorkerHandle {
  child: ChildProcess;
  /** Once built and started, before any job. */
  ready: WorkerSample;
  sample(): Promise<WorkerSample>;
  stop(): Promise<WorkerSample & { cache: Record<string, number> | null }>;
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

const pick = (m: WorkerSample): WorkerSample => ({ cpuMs: m.cpuMs, rssMb: m.rssMb, peakRssMb: m.peakRssMb });

export async function startWorkerProcess(settings: unknown): Promise<WorkerHandle> {
  const child = fork(new URL('./worker-process.ts', import.meta.url), [], {
    env: { ...process.env, BENCH_SETTINGS: JSON.stringify(settings) },
    ...(process.env.BENCH_WORKER_NODE_OPTIONS
      ? { execArgv: [...process.execArgv, ...process.env.BENCH_WORKER_NODE_OPTIONS.split(' ')] }
      : {}),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`worker process exited with ${code}`)));
  });
  exited.catch(() => undefined);
  const ready = pick(await Promise.race([ask<WorkerSample>(child, '', 'ready', 60_000), exited]));
  let stopped: Promise<WorkerSample & { cache: Record<string, number> | null }> | undefined;
  return {
    child,
    ready,
    sample: async () => pick(await ask<WorkerSample>(child, 'sample', 'sample')),
    stop: () => {
      stopped ??= (async () => {
        if (child.exitCode !== null || !child.connected) throw new Error('worker process is gone');
        try {
          return await ask<WorkerSample & { cache: Record<string, number> | null }>(child, 'stop', 'stopped');
        } catch (err) {
          child.kill('SIGKILL');
          throw err;
        }
      })();
      return stopped;
    },
  };
}
