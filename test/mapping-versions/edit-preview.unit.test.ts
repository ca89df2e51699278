// The mapping console's rules without a browser or a database: the form's rows become a mapping file's
// document (hidden keys carried from the row they were edited from) and its problems come back by row
// and input; the row diff; the preview's dry run (a person's value kept by fill-empty, written by
// overwrite); the active mapping's fallback when the store cannot be asked.
import { describe, expect, it } from 'vitest';
import type { Mapping } from '../../src/map/mapping-schema.ts';
import { activeMapping } from '../../src/mapping-versions/active.ts';
import { describeChange, diffMappings } from '../../src/mapping-versions/diff.ts';
import { documentOf, type MappingEdit, mappingOfEdit } from '../../src/mapping-versions/edit.ts';
import { previewMappingChange } from '../../src/mapping-versions/preview.ts';
import { IntegrationError } from '../../src/shared/errors.ts';
import type { Outcome } from '../../src/store/outcomes.ts';

const BASE: Mapping = {
  version: 1,
  fields: [
    {
      attribute: 'Type',
      property: 'buyer_intel_type',
      label: 'Buyer type',
      transform: 'enum',
      policy: 'ours',
      enumLabels: { SchoolDistrict: 'School District' },
    },
    {
      attribute: 'MainPhoneNumber',
      property: 'buyer_intel_main_phone',
      transform: 'text',
      policy: 'fill-empty',
    },
  ],
};

const T = { acceptThreshold: 0.75, ambiguityMargin: 0.1 };
const rowsOf = (m: Mapping): MappingEdit['fields'] =>
  m.fields.map((f, i) => ({
    from: i,
    attribute: f.attribute,
    property: f.property,
    transform: f.transform,
    policy: f.policy,
  }));

describe('an edit of the form', () => {
  it('keeps a row’s label and enum labels, and drops the enum labels when the transform leaves enum', () => {
    const same = mappingOfEdit({ base: 1, fields: rowsOf(BASE) }, BASE, T);
    expect(same).toEqual({ ok: true, mapping: BASE, thresholds: T });
    const fields = rowsOf(BASE);
    fields[0] = { ...fields[0], transform: 'text' } as MappingEdit['fields'][number];
    fields.push({
      attribute: 'Population',
      property: 'buyer_intel_population',
      transform: 'integer',
      policy: 'ours',
    });
    const doc = documentOf({ base: 1, fields }, BASE) as Mapping;
    expect(doc.fields[0]).toEqual({
      attribute: 'Type',
      property: 'buyer_intel_type',
      label: 'Buyer type',
      transform: 'text',
      policy: 'ours',
    });
    expect(doc.fields[2]).toEqual({
      attribute: 'Population',
      property: 'buyer_intel_population',
      transform: 'integer',
      policy: 'ours',
    });
    expect(mappingOfEdit({ base: 1, fields }, BASE, T).ok).toBe(true);
  });

  it('locates each problem by row and input, with the mapping file’s messages', () => {
    const fields = rowsOf(BASE);
    fields.push({
      attribute: 'Populaton',
      property: 'buyer_intel_main_phone',
      transform: 'integer',
      policy: 'keep',
    });
    const result = mappingOfEdit(
      { base: 1, fields, thresholds: { acceptThreshold: 0, ambiguityMargin: 'wide' } },
      BASE,
      T,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual(
      expect.arrayContaining([
        {
          row: 2,
          key: 'attribute',
          message: '"Populaton" is not a BuyerField key (did you mean "Population"?)',
        },
        { row: 2, key: 'policy', message: expect.stringContaining('"keep" is not a policy') },
        {
          row: 2,
          key: 'property',
          message: expect.stringContaining('duplicate property "buyer_intel_main_phone"'),
        },
      ]),
    );
  });
});

describe('the row diff', () => {
  it('names a changed policy, an added and a removed row', () => {
    const after: Mapping = {
      version: 1,
      fields: [
        { ...BASE.fields[1], policy: 'overwrite' } as Mapping['fields'][number],
        { attribute: 'County', property: 'buyer_intel_county', transform: 'text', policy: 'ours' },
      ],
    };
    expect(diffMappings(BASE, after).map(describeChange)).toEqual([
      'buyer_intel_main_phone: policy fill-empty → overwrite',
      'buyer_intel_county: added (County, text, ours)',
      'buyer_intel_type: removed (was Type)',
    ]);
    expect(diffMappings(BASE, BASE)).toEqual([]);
  });
});

function outcome(accountId: string, buyerId: string, phone: string | null): Outcome {
  return {
    id: accountId,
    crm: 'hubspot',
    tenant: 't1',
    accountId,
    accountName: `Account ${accountId}`,
    state: 'TX',
    status: 'enriched',
    cohort: 'matched_by_name',
    matchedBy: 'name',
    buyerId,
    buyerName: null,
    buyerType: null,
    confidence: 0.9,
    reason: null,
    candidates: [],
    detail: {
      source: 'search',
      fields: [
        {
          property: 'buyer_intel_main_phone',
          policy: 'fill-empty',
          old: phone,
          new: '512-974-2000',
          decision: phone === null ? 'write' : 'blocked-not-empty',
        },
      ],
      written: {},
      notes: { created: [], alreadyPresent: 0, overCap: 0 },
    },
    trigger: null,
    error: null,
    pinned: false,
    duplicateOf: null,
    runId: null,
    jobId: null,
    updatedAt: new Date(),
  };
}

describe('the preview', () => {
  const overwrite: Mapping = {
    ...BASE,
    fields: BASE.fields.map((f) =>
      f.property === 'buyer_intel_main_phone' ? { ...f, policy: 'overwrite' } : f,
    ),
  };

  it('shows a person’s value kept by fill-empty and replaced under overwrite; an unreadable buyer is named', async () => {
    const preview = await previewMappingChange(
      {
        recentEnriched: async () => [
          outcome('a1', 'b1', '(512) 555-0100'),
          outcome('a2', 'b2', null),
          outcome('a3', 'gone', null),
        ],
        lastWrittenMany: async () => new Map([['a2', { buyer_intel_main_phone: '512-974-2000' }]]),
        attributesOf: async (buyerId) => {
          if (buyerId === 'gone') throw new Error('the provider answered 503');
          return { MainPhoneNumber: '512-974-2000' };
        },
      },
      BASE,
      overwrite,
    );
    expect(preview.sampled).toBe(3);
    expect(preview.unavailable).toEqual([
      { accountName: 'Account a3', accountId: 'a3', reason: 'the provider answered 503' },
    ]);
    const [kept, ours] = preview.rows;
    expect(kept).toMatchObject({
      accountId: 'a1',
      property: 'buyer_intel_main_phone',
      current: '(512) 555-0100',
      before: { decision: 'blocked-not-empty', value: '(512) 555-0100' },
      after: { decision: 'write', value: '512-974-2000' },
      differs: true,
    });
    // Our own value already there: the same under either policy.
    expect(ours).toMatchObject({ accountId: 'a2', current: '512-974-2000', differs: false });
    expect(ours?.after?.decision).toBe('unchanged');
  });

  it('reads no account when nothing changed', async () => {
    let read = false;
    const preview = await previewMappingChange(
      {
        recentEnriched: async () => {
          read = true;
          return [];
        },
        lastWrittenMany: async () => new Map(),
        attributesOf: async () => ({}),
      },
      BASE,
      BASE,
    );
    expect(preview).toEqual({ sampled: 0, changes: [], rows: [], unavailable: [] });
    expect(read).toBe(false);
  });
});

describe('the mapping in force', () => {
  it('goes on with the one last read when the store cannot be asked, and refuses to guess before that', async () => {
    let up = false;
    let clock = 0;
    const stored = { ...BASE, fields: [BASE.fields[1]] } as Mapping;
    const active = activeMapping({
      file: BASE,
      thresholds: T,
      now: () => clock,
      versions: async () => {
        if (!up) throw new Error('connection refused');
        return {
          latestNumber: async () => 4,
          latest: async () => ({
            version: 4,
            mapping: stored,
            thresholds: null,
            actor: 'ops',
            reason: null,
            reverts: null,
            at: new Date(),
          }),
        };
      },
    });
    const first = await active.current().catch((e: unknown) => e);
    expect(first).toBeInstanceOf(IntegrationError);
    expect(first).toMatchObject({ permanent: false });
    up = true;
    expect(await active.current()).toEqual({ version: 4, mapping: stored, thresholds: T, fromFile: false });
    up = false;
    clock += 5_000;
    expect((await active.current()).version).toBe(4);
  });
});
