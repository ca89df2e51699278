// The Buyer Intelligence client against the local sandbox over real HTTP: calls/s and latency per
// operation at a given concurrency.
import type { SandboxDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { startBuyerIntelSandbox } from '../emulators/buyer-intel/server.ts';
import { BuyerIntelClient } from '../src/buyer-intel/index.ts';

export async function runClientBench(o: {
  calls: number;
  concurrency: number;
  latencyMs: number;
  dataset: SandboxDataset;
}) {
  const { calls, concurrency, latencyMs, dataset } = o;
  const sandbox = await startBuyerIntelSandbox({ dataset, rateLimit: false, faults: { latencyMs } });
  const client = new BuyerIntelClient({ baseUrl: sandbox.url, token: sandbox.token, rateLimit: false });

  async function measure(name: string, op: (i: number) => Promise<unknown>) {
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < calls) {
          const i = next++;
          const s = performance.now();
          await op(i);
          latencies.push(performance.now() - s);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
    return {
      name,
      calls,
      perSecond: Math.round(calls / seconds),
      p50Ms: +pct(0.5).toFixed(2),
      p99Ms: +pct(0.99).toFixed(2),
    };
  }

  const buyers = dataset.buyers;
  const names = ['Springfield', 'Austin', 'Portland', 'Columbus', 'Kansas City', 'Travis County', 'Boston'];
  const results = [
    await measure('searchBuyers', (i) =>
      client.searchBuyers({ buyerName: names[i % names.length] ?? 'Austin', buyerStateCode: 'TX' }),
    ),
    await measure('getBuyerAttributesBulk (25 keys)', (i) =>
      client.getBuyerAttributesBulk(buyers[i % buyers.length]?.id ?? '', [
        'Name',
        'Type',
        'Population',
        'BudgetAmount',
        'Url',
        'StateCode',
        'City',
        'County',
        'ParentName',
        'EmailDomains',
        'AiAdoptionScore',
        'ProcurementHellScore',
        'PropensityToSpendScore',
        'PropensityToSpend',
        'TotalEnrollment',
        'NcesId',
        'IpedsIdNumeric',
        'FiscalYearStartDate',
        'BudgetLatestYear',
        'EmployeeFte',
        'PopulationTrend',
        'MainPhoneNumber',
        'Zip',
        'LinkedinSlug',
        'StartupFriendlinessScore',
      ]),
    ),
    await measure('listRecentBuyerSignals', (i) =>
      client.listRecentBuyerSignals({
        buyerId: buyers[i % buyers.length]?.id ?? '',
        relativeDatePeriodFrom: 'LastYear',
      }),
    ),
  ];
  await sandbox.close();
  return results;
}
