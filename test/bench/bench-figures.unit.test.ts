// The benchmark's figures are only as honest as the arithmetic and the data behind them: the bound
// comes from the APIs' documented capacity (never from our own call count), the emulators' counts are
// split into reads, writes and notes as the report says, and the accounts are named as CRMs spell
// buyers rather than as the buyer.
import { describe, expect, it } from 'vitest';
import { benchAccounts, nameVariants, withTypo } from '../../bench/accounts.ts';
import { backfillBound } from '../../bench/bound.ts';
import { splitCalls } from '../../bench/calls.ts';
import { commandDelta } from '../../bench/redis-stats.ts';
import { buildDataset } from '../../emulators/buyer-intel/data/dataset.ts';

describe('the backfill bound', () => {
  it('is HubSpot 19 req/s × 100 records over 1 read + 1 write + the notes an account gets', () => {
    const b = backfillBound({
      crm: 'hubspot',
      notesPerAccount: 1,
      buyerIntelPerMinute: 300_000,
      buyerIntelCallsPerNewBuyer: 2.35,
    });
    expect(b.byApi.crm).toBeCloseTo((19 * 100) / 3, 1);
    expect(b.boundBy).toBe('crm');
    expect(b.accountsPerSecond).toBeCloseTo(633.3, 1);
  });

  it("is Salesforce's daily allocation less 20 % headroom, spread over the day, × 200 records", () => {
    const b = backfillBound({
      crm: 'salesforce',
      notesPerAccount: 0,
      buyerIntelPerMinute: 300_000,
      buyerIntelCallsPerNewBuyer: 3,
    });
    expect(b.byApi.crm).toBeCloseTo(((100_000 * 0.8) / 86_400) * 100, 1);
  });

  it('falls to Buyer Intelligence when its rate over calls per new buyer is lower', () => {
    const b = backfillBound({
      crm: 'hubspot',
      notesPerAccount: 0,
      buyerIntelPerMinute: 600,
      buyerIntelCallsPerNewBuyer: 2,
    });
    expect(b.boundBy).toBe('buyerIntel');
    expect(b.accountsPerSecond).toBe(5);
  });
});

describe('the emulators’ call counts', () => {
  it('split HubSpot calls into reads, writes, notes and listing, refused ones apart', () => {
    const s = splitCalls('hubspot', {
      'crm.companies.basicApi.getById': { '200': 5 },
      'crm.companies.batchApi.read': { '200': 1 },
      'crm.associations.v4.basicApi.getPage': { '200': 2 },
      'crm.companies.batchApi.update': { '200': 3, '429': 4 },
      'crm.objects.notes.batchApi.create': { '201': 2 },
      'crm.companies.basicApi.getPage': { '200': 7 },
    });
    expect(s).toMatchObject({ reads: 8, writes: 3, notes: 2, listing: 7, admitted: 20, limited: 4 });
  });

  it('split Salesforce calls, REQUEST_LIMIT_EXCEEDED (403) counted as refused', () => {
    const s = splitCalls('salesforce', {
      'sobjects.retrieve': { '200': 4 },
      query: { '200': 2 },
      'composite.sobjects.update': { '200': 1, '403': 2 },
      'composite.sobjects.create': { '200': 3 },
    });
    expect(s).toMatchObject({ reads: 6, writes: 1, notes: 3, admitted: 10, limited: 2 });
  });

  it('leave the snapshots’ own INFO out of a Redis commandstats delta', () => {
    const d = commandDelta(
      new Map([
        ['get', 10],
        ['info', 1],
      ]),
      new Map([
        ['get', 15],
        ['evalsha', 2],
        ['info', 2],
      ]),
    );
    expect(d).toEqual({ total: 7, byCommand: { get: 5, evalsha: 2 } });
  });
});

describe('the bench accounts', () => {
  it('spell buyers as CRMs do', () => {
    expect(nameVariants('City of Austin', 'TX')).toEqual(
      expect.arrayContaining(['Austin, City of', 'Austin TX']),
    );
    expect(nameVariants('Travis County', 'TX')).toContain('Travis Co.');
    expect(nameVariants('Plano Independent School District', 'TX')).toContain('Plano ISD');
    expect(nameVariants('Springfield Police Department', 'IL')).toContain('Springfield PD');
    const typo = withTypo('Springfield Police', () => 0.5);
    expect(typo).not.toBe('Springfield Police');
    expect([...typo].sort().join('')).toBe([...'Springfield Police'].sort().join(''));
  });

  it('are mostly not the buyer’s exact name, with non-buyers, typos and missing states among them', () => {
    const dataset = buildDataset({ seed: 42 });
    const accounts = benchAccounts(dataset, 2000, 1200);
    const names = new Set(dataset.buyers.map((b) => b.name));
    const exact = accounts.filter((a) => names.has(a.name)).length / accounts.length;
    expect(exact).toBeLessThan(0.3);
    const share = (k: string) => accounts.filter((a) => a.kind === k).length / accounts.length;
    expect(share('non-buyer')).toBeGreaterThan(0.04);
    expect(share('typo')).toBeGreaterThan(0.03);
    expect(accounts.filter((a) => a.state === '').length).toBeGreaterThan(100);
    // Seeded: the same sizes give the same accounts.
    expect(benchAccounts(dataset, 2000, 1200)).toEqual(accounts);
  });
});
