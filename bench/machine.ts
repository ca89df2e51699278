// The machine a bench ran on, and its load average (1, 5, 15 min) around each run: the machine may be
// shared, and every figure is to be read next to it.
import { cpus, loadavg, totalmem } from 'node:os';

export const load = () => loadavg().map((x) => +x.toFixed(2));

/** CPU time every core of the machine has spent busy since boot, in ms (every process, ours or not). */
export const busyCpuMs = () =>
  cpus().reduce((sum, c) => sum + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);

/**
 * What the machine's cores allow at the CPU time a window's accounts took across every process (the
 * workers, the emulators, Redis, PostgreSQL, the bench): a run cannot go faster here, whatever the
 * upstreams' limits allow.
 */
export function cpuCeiling(busyMs: number, finished: number) {
  const msPerAccount = finished ? busyMs / finished : null;
  return {
    cores: cpus().length,
    msPerAccount: msPerAccount === null ? null : +msPerAccount.toFixed(1),
    accountsPerSecond: msPerAccount ? Math.round((cpus().length * 1000) / msPerAccount) : null,
  };
}

export const machine = () => ({
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  memoryGb: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  loadAverageAtStart: load(),
});

/** A run with the load average before and after it. */
export async function measured<T>(
  run: () => Promise<T>,
): Promise<T & { loadAverage: { before: number[]; after: number[] } }> {
  const before = load();
  const result = await run();
  return { ...result, loadAverage: { before, after: load() } };
}
