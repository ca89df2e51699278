// The sandbox's seeded data set: deterministic, large enough, with the resolver's hard cases, typed
// attributes and rows shaped like their bridges.
import { beforeAll, describe, expect, it } from 'vitest';
import { populationTrendFor } from '../../emulators/buyer-intel/data/attributes.ts';
import { HARD_CASES } from '../../emulators/buyer-intel/data/buyers.ts';
import {
  buildDataset,
  forkDataset,
  type SandboxBuyer,
  type SandboxDataset,
} from '../../emulators/buyer-intel/data/dataset.ts';
import { addSandboxRow, touchSandboxRow } from '../../emulators/buyer-intel/webhook-sender.ts';
import { BUYER_TYPES, RELATIVE_DATE_PERIODS } from '../../src/buyer-intel/enums.ts';
import { BUYER_FIELDS } from '../../src/buyer-intel/fields.ts';

const now = new Date('2026-11-21T12:00:00Z');
let ds: SandboxDataset;
let again: SandboxDataset;

beforeAll(() => {
  ds = buildDataset({ seed: 42, now });
  again = buildDataset({ seed: 42, now });
});

const find = (name: string, state: string): SandboxBuyer | undefined =>
  ds.buyers.find((b) => b.name === name && b.stateCode === state);

function attributes(buyer: SandboxBuyer | undefined) {
  const a = ds.attributesOf(buyer?.id ?? '');
  if (!a) throw new Error(`no attributes for ${buyer?.name}`);
  return a;
}

describe('determinism', () => {
  it('builds the same data set from the same seed and now', () => {
    const sample = (d: SandboxDataset) => ({
      buyers: d.buyers.filter((_, i) => i % 97 === 0),
      bridges: d.bridges,
      rows: d.rows.filter((_, i) => i % 211 === 0),
      attributes: d.buyers.filter((_, i) => i % 331 === 0).map((b) => d.attributesOf(b.id)),
    });
    expect(again.buyers.length).toBe(ds.buyers.length);
    expect(again.rows.length).toBe(ds.rows.length);
    expect(sample(again)).toEqual(sample(ds));
  });

  it('draws differently from another seed, keeping the hard cases', () => {
    const other = buildDataset({ seed: 7, now, buyerCount: 800 });
    expect(other.buyers.length).toBe(800);
    expect(other.buyers.map((b) => b.id)).not.toEqual(ds.buyers.slice(0, 800).map((b) => b.id));
    expect(other.buyers.some((b) => b.name === 'Austin Independent School District')).toBe(true);
  });
});

describe('buyers', () => {
  it('has at least 5,000 buyers, of every main type, with unique (name, state) and uuid ids', () => {
    expect(ds.buyers.length).toBeGreaterThanOrEqual(5000);
    const types = new Set(ds.buyers.map((b) => b.type));
    for (const type of [
      'City',
      'County',
      'SchoolDistrict',
      'HigherEducation',
      'PoliceDepartment',
      'FireDepartment',
      'StateAgency',
      'SpecialDistrict',
      'Federal',
      'School',
      'Library',
    ] as const) {
      expect(types.has(type), type).toBe(true);
    }
    for (const type of types) expect(BUYER_TYPES).toContain(type);
    expect(new Set(ds.buyers.map((b) => `${b.name}|${b.stateCode}`)).size).toBe(ds.buyers.length);
    expect(
      ds.buyers.every((b) =>
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(b.id),
      ),
    ).toBe(true);
  });

  it('has a City of Springfield for every Springfield of the place data, in distinct states', () => {
    const springfields = ds.buyers.filter((b) => b.name === 'City of Springfield');
    expect(springfields.length).toBeGreaterThanOrEqual(15);
    expect(springfields.every((b) => b.type === 'City' && b.city === 'Springfield')).toBe(true);
    for (const st of ['IL', 'MO', 'MA', 'OH', 'OR'])
      expect(find('City of Springfield', st)?.type).toBe('City');
    expect(find('Springfield Public Schools', 'MA')?.type).toBe('SchoolDistrict');
    expect(find('Springfield School District', 'OR')?.type).toBe('SchoolDistrict');
  });

  it('has the Austin hard cases with the right states, types and parents', () => {
    const expected: [string, string, string][] = [
      ['City of Austin', 'TX', 'City'],
      ['City of Austin', 'MN', 'City'],
      ['Austin County', 'TX', 'County'],
      ['Travis County', 'TX', 'County'],
      ['Austin Independent School District', 'TX', 'SchoolDistrict'],
      ['The University of Texas at Austin', 'TX', 'HigherEducation'],
      ['Austin Community College', 'TX', 'HigherEducation'],
      ['Austin Police Department', 'TX', 'PoliceDepartment'],
    ];
    for (const [name, state, type] of expected)
      expect(find(name, state)?.type, `${name}, ${state}`).toBe(type);
    for (const { name, state, type } of HARD_CASES)
      expect(find(name, state)?.type, `${name}, ${state}`).toBe(type);
    expect(find('City of Austin', 'TX')?.county).toBe('Travis County');
    expect(find('Austin Police Department', 'TX')?.parentBuyerId).toBe(find('City of Austin', 'TX')?.id);
    for (const [name, state] of [
      ['City of Portland', 'OR'],
      ['City of Portland', 'ME'],
      ['City of Columbus', 'OH'],
      ['City of Columbus', 'GA'],
      ['City of Kansas City', 'MO'],
      ['City of Kansas City', 'KS'],
    ] as const) {
      expect(find(name, state)?.type).toBe('City');
    }
  });

  it('gives every hard case at least three signals, some new within the last 30 days', () => {
    const since = new Date(now.getTime() - 30 * 86_400_000).toISOString();
    const springfields = ds.buyers
      .filter((b) => b.name === 'City of Springfield')
      .map((b) => [b.name, b.stateCode] as const);
    for (const [name, state] of [...HARD_CASES.map((h) => [h.name, h.state] as const), ...springfields]) {
      const rows = ds.rowsByBuyer.get(find(name, state)?.id ?? '') ?? [];
      expect(rows.length, `${name}, ${state}`).toBeGreaterThanOrEqual(3);
      expect(rows.some((r) => r.userStatus === 'New' && r.signalDate >= since)).toBe(true);
    }
  });
});

describe('attributes', () => {
  it('returns all 179 keys, with some nulls, and undefined for an unknown buyer', () => {
    const austin = find('City of Austin', 'TX');
    const a = ds.attributesOf(austin?.id ?? '');
    expect(Object.keys(a ?? {})).toEqual([...BUYER_FIELDS]);
    expect(BUYER_FIELDS).toHaveLength(179);
    expect(Object.values(a ?? {}).some((v) => v === null)).toBe(true);
    expect(ds.attributesOf('00000000-0000-4000-8000-000000000000')).toBeUndefined();
    expect(ds.attributesOf(austin?.id ?? '')).toBe(a);
  });

  it('types values plausibly and agrees with the buyer record', () => {
    const austin = find('City of Austin', 'TX');
    const a = attributes(austin);
    expect(a.Id).toBe(austin?.id);
    expect(a.Name).toBe('City of Austin');
    expect(a.Type).toBe('City');
    expect(a.StateName).toBe('Texas');
    expect(a.Population).toBe(931830);
    expect(a.EmailDomains).toEqual(['austintexas.gov']);
    expect(a.SgcId).toBeNull();
    expect(a.SchoolDistrictSector).toBeNull();
    expect(a.MainPhoneNumber).toMatch(/^\(\d{3}\) \d{3}-\d{4}$/);
    expect(a.FiscalYearStartDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const district = attributes(find('Austin Independent School District', 'TX'));
    expect(district.Type).toBe('School District');
    expect(district.HigherEdMascot).toBeNull();
    const college = attributes(find('The University of Texas at Austin', 'TX'));
    expect(college.HigherEdMascot).toBe('Longhorns');
    expect(college.HigherEdControlOfInstitution).toBe('Public');
  });

  it('is consistent across all buyers: integers, arrays, trends, enums', () => {
    let nulls = 0;
    let values = 0;
    for (const b of ds.buyers) {
      const a = attributes(b);
      for (const v of Object.values(a)) {
        if (v === null) nulls++;
        else values++;
      }
      if (a.Population !== null) expect(Number.isInteger(a.Population), b.name).toBe(true);
      if (a.EmailDomains !== null) expect(Array.isArray(a.EmailDomains)).toBe(true);
      const pct = a.PopulationFiveYearChangePercentage;
      if (typeof pct === 'number') expect(a.PopulationTrend).toBe(populationTrendFor(pct));
      else expect(a.PopulationTrend).toBeNull();
      if (a.AiAdoptionScore !== null)
        expect(a.AiAdoptionScore).toSatisfy((s: number) => Number.isInteger(s) && s >= 1 && s <= 100);
      if (a.PropensityToSpend !== null) {
        expect(['Aggressive Spender', 'Open to Spend', 'Selective', 'Highly Cautious']).toContain(
          a.PropensityToSpend,
        );
      }
      if (a.BudgetConfidence !== null) expect(['verified', 'inferred']).toContain(a.BudgetConfidence);
      if (a.HasCampusPolice !== null) expect(typeof a.HasCampusPolice).toBe('boolean');
      expect(a.SgcId).toBeNull();
    }
    expect(nulls).toBeGreaterThan(0);
    expect(values).toBeGreaterThan(0);
  });
});

describe('bridges and rows', () => {
  it('has a dozen bridges over the main filter types, two of them private', () => {
    expect(ds.bridges.length).toBeGreaterThanOrEqual(10);
    const types = new Set(ds.bridges.map((b) => b.filterType));
    for (const t of [
      'RFP',
      'Meeting',
      'Purchase',
      'Conference',
      'JobChange',
      'Contact',
      'Signal',
      'Buyer',
    ] as const) {
      expect(types.has(t), t).toBe(true);
    }
    expect(ds.bridges.filter((b) => !b.sharedWithAll)).toHaveLength(2);
    for (const b of ds.bridges) {
      expect(b.columns.length).toBeGreaterThanOrEqual(4);
      expect(b.columns.length).toBeLessThanOrEqual(8);
      expect(
        b.columns.some((c) => c.fieldFormat.baseFormat === 'url'),
        b.name,
      ).toBe(true);
      expect(
        b.columns.some((c) => c.fieldFormat.baseFormat === 'date'),
        b.name,
      ).toBe(true);
    }
  });

  it('keys every row\u2019s columns by its bridge\u2019s column names', () => {
    expect(ds.rows.length).toBeGreaterThan(15_000);
    const misshapen = ds.rows.filter((row) => {
      const names = ds.bridgesById.get(row.bridgeId)?.columns.map((c) => c.name) ?? [];
      const keys = Object.keys(row.columns);
      return (
        keys.length !== names.length ||
        keys.some((k, i) => k !== names[i]) ||
        row.hotness < 0 ||
        row.hotness > 100
      );
    });
    expect(misshapen).toEqual([]);
    for (const b of ds.bridges) {
      const rows = ds.rowsByBridge.get(b.bridgeId) ?? [];
      expect(
        rows.some((r) => Object.values(r.columns).some((c) => c.status === 'Processing' && c.value === null)),
        b.name,
      ).toBe(true);
    }
  });

  it('spreads signal dates so each relative period selects a different subset', () => {
    const month = (n: number) => {
      const d = new Date(now);
      d.setUTCMonth(d.getUTCMonth() - n);
      return d;
    };
    const day = (n: number) => new Date(now.getTime() - n * 86_400_000);
    const starts = [
      day(1),
      day(7),
      day(30),
      day(60),
      month(1),
      month(2),
      month(3),
      month(6),
      month(9),
      month(12),
      month(24),
    ];
    expect(starts).toHaveLength(RELATIVE_DATE_PERIODS.length);
    const counts = starts.map((s) => ds.rows.filter((r) => r.signalDate >= s.toISOString()).length);
    expect(new Set(counts).size).toBe(counts.length);
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[counts.length - 1]).toBeLessThan(ds.rows.length);
  });

  it('uses organizers on conference rows and Attending/Sponsoring only there', () => {
    const wrong = ds.rows.filter((row) => {
      const conference = ds.bridgesById.get(row.bridgeId)?.filterType === 'Conference';
      const eventStatus = row.userStatus === 'Attending' || row.userStatus === 'Sponsoring';
      return conference ? row.organizerId === null : eventStatus || row.organizerId !== null;
    });
    expect(wrong).toEqual([]);
  });
});

describe('a fork of the data set (one per server when servers share one built set)', () => {
  it('has rows of its own: a row changed or added on the fork leaves the original as it was', () => {
    const fork = forkDataset(ds);
    const row = fork.rows.find((r) => Object.keys(r.columns).length > 0);
    if (!row) throw new Error('no row with columns');
    const original = ds.rowsById.get(row.rowId);
    const column = Object.keys(row.columns)[0] ?? '';
    touchSandboxRow(fork, row.rowId, { [column]: 'changed on the fork' });
    row.userStatus = 'Actioned';
    addSandboxRow(fork, { bridgeId: row.bridgeId, buyerId: row.buyerId });
    expect(original?.columns[column]?.value).not.toBe('changed on the fork');
    expect(original?.userStatus).not.toBe('Actioned');
    expect(ds.rows).toHaveLength(fork.rows.length - 1);
    expect(ds.rowsByBridge.get(row.bridgeId)).toHaveLength(
      (fork.rowsByBridge.get(row.bridgeId)?.length ?? 0) - 1,
    );
    // What no route changes is shared, not copied.
    expect(fork.buyers).toBe(ds.buyers);
  });
});
