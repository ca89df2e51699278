// The backfill runs of `npm run bench`, one after another (CRM × worker processes), each with the load
// average around it; a run that fails is reported and the next one runs.
import { type BackfillBenchOptions, type BackfillBenchResult, runBackfillBench } from './backfill.ts';
import { load, measured } from './machine.ts';

export type BackfillRun = BackfillBenchResult & {
  label: string;
  loadAverage: { before: number[]; after: number[] };
};

export async function runBackfills(
  plan: (readonly ['hubspot' | 'salesforce', number])[],
  base: Omit<BackfillBenchOptions, 'crm' | 'workers'>,
  onRun: (done: BackfillRun[]) => void,
): Promise<BackfillRun[]> {
  const runs: BackfillRun[] = [];
  for (const [crm, workers] of plan) {
    // The provider's limit is lifted in these runs: a CPU probe, not a customer's pace (customer.ts).
    const label = `CPU probe ${crm === 'hubspot' ? 'HubSpot' : 'Salesforce'} ×${workers}`;
    console.log(`\nbackfill ${label}: ${base.accounts} accounts, load average ${load().join(' ')}`);
    const r = await measured(() => runBackfillBench({ ...base, crm, workers })).catch((err: unknown) => {
      console.error(`backfill ${label} failed: ${(err as Error).stack ?? err}`);
      return null;
    });
    if (!r) continue;
    runs.push({ ...r, label });
    onRun(runs);
  }
  return runs;
}
