// The machine a bench ran on, and its load average (1, 5, 15 min) around each run: the machine may be
// shared, and every figure is to be read next to it.
import { cpus, loadavg, totalmem } from 'node:os';

export const load = () => loadavg().map((x) => +x.toFixed(2));

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
