// The heap curve (`--only heap-curve`): the same short HubSpot backfill (one worker) once per set of
// heap flags, each with the worker's CPU per account and its peak RSS, so the flags docker-compose.yml
// gives the worker are picked from a curve (least CPU with RSS ≤ 400 MB) rather than from one point.
// A set is `old/semi` in MB (--max-old-space-size / --max-semi-space-size), `-` for V8's default of
// either, and optionally `/growth`: --heap-growing-percent, the old generation's growth between full
// collections (V8 picks ~42 % itself under a 384-MB cap, and 100 % or more only above 1 GB). Name the
// first set again at the end to see how far the machine's load moved the figures.
import { renderTable } from '../src/cli/table.ts';
import { type BackfillBenchOptions, runBackfillBench } from './backfill.ts';
import { load } from './machine.ts';

export interface HeapPoint {
  flags: string;
  accountsPerSecond: number;
  finished: number;
  workerCpuMsPerAccount: number | null;
  peakRssMb: number;
  liveHeapMb: number;
  loadAverage: { before: number[]; after: number[] };
}

/** `144/4` → the two flags, `384/16/60` the three; `-` leaves V8's default. */
export function heapFlagsOf(point: string): string[] {
  const [old, semi, growth] = point.split('/');
  const flags: string[] = [];
  if (old && old !== '-') flags.push(`--max-old-space-size=${Number(old)}`);
  if (semi && semi !== '-') flags.push(`--max-semi-space-size=${Number(semi)}`);
  if (growth && growth !== '-') flags.push(`--heap-growing-percent=${Number(growth)}`);
  return flags;
}

export async function runHeapCurve(
  points: readonly string[],
  base: Omit<BackfillBenchOptions, 'crm' | 'workers' | 'heapFlags'>,
): Promise<HeapPoint[]> {
  const out: HeapPoint[] = [];
  for (const point of points) {
    const flags = heapFlagsOf(point);
    const label = flags.join(' ') || "V8's defaults";
    const before = load();
    console.log(`heap curve: ${label}, ${base.accounts} accounts, load average ${before.join(' ')}`);
    const r = await runBackfillBench({ ...base, crm: 'hubspot', workers: 1, heapFlags: flags }).catch(
      (err: unknown) => {
        console.error(`heap curve ${label} failed: ${(err as Error).stack ?? err}`);
        return null;
      },
    );
    if (!r) continue;
    const w = r.workerSamples[0];
    out.push({
      flags: label,
      accountsPerSecond: r.accountsPerSecond,
      finished: r.finished,
      workerCpuMsPerAccount: r.workerCpuMsPerAccount,
      peakRssMb: w?.peakRssMb ?? 0,
      liveHeapMb: w?.liveHeapMb ?? 0,
      loadAverage: { before, after: load() },
    });
  }
  return out;
}

export function printHeapCurve(points: readonly HeapPoint[]): void {
  console.log(
    renderTable(
      points.map((p) => [
        p.flags,
        p.finished,
        p.accountsPerSecond,
        p.workerCpuMsPerAccount ?? '–',
        p.peakRssMb,
        p.liveHeapMb,
        `${p.loadAverage.before[0]} → ${p.loadAverage.after[0]}`,
      ]),
      {
        head: [
          'heap flags',
          'accounts',
          'accounts/s',
          'worker CPU ms/account',
          'peak RSS MB',
          'live heap MB',
          'load (1 min)',
        ],
      },
    ),
  );
}
