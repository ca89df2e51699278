import { describe, expect, it } from 'vitest';
import type { BuyerField } from '../../src/buyer-intel/fields.ts';
import type { Mapping, MappingField } from '../../src/map/mapping-schema.ts';
import { type FieldChange, planFieldWrites } from '../../src/map/plan.ts';

function mappingOf(...fields: Partial<MappingField>[]): Mapping {
  return {
    version: 1,
    fields: fields.map((f) => ({
      attribute: 'Population',
      property: 'buyer_intel_population',
      transform: 'integer',
      policy: 'ours',
      ...f,
    })),
  };
}

/** Plans a single field and returns its change. */
function one(
  field: Partial<MappingField>,
  value: unknown,
  current: string | null | undefined,
  ledger?: string,
): FieldChange {
  const f = mappingOf(field);
  const property = f.fields[0]?.property ?? '';
  const attribute = f.fields[0]?.attribute as BuyerField;
  const plan = planFieldWrites({
    mapping: f,
    attributes: { [attribute]: value },
    current: current === undefined ? {} : { [property]: current },
    ledger: ledger === undefined ? {} : { [property]: ledger },
  });
  const change = plan.changes[0];
  if (!change) throw new Error('no change');
  // `updates` holds exactly the writes.
  expect(plan.updates).toEqual(
    change.decision === 'write' || change.decision === 'clear' ? { [property]: change.new } : {},
  );
  expect(change.reason.length).toBeGreaterThan(5);
  return change;
}

describe('planFieldWrites', () => {
  describe("policy 'ours' (the default)", () => {
    it('writes into an empty field (null, missing or blank)', () => {
      expect(one({}, 961855, null)).toMatchObject({
        decision: 'write',
        old: null,
        new: '961855',
        policy: 'ours',
      });
      expect(one({}, 961855, undefined).decision).toBe('write');
      expect(one({}, 961855, '  ').decision).toBe('write');
    });

    it('updates the value we wrote last', () => {
      expect(one({}, 961856, '961855', '961855')).toMatchObject({
        decision: 'write',
        old: '961855',
        new: '961856',
      });
      // the CRM gave our number back formatted differently: still ours
      expect(one({}, 961856, '961855.0', '961855').decision).toBe('write');
    });

    it('keeps a value a person changed after our write', () => {
      const change = one({}, 961856, '1000001', '961855');
      expect(change).toMatchObject({ decision: 'blocked-edited-by-person', old: '1000001', new: '961856' });
      expect(change.reason).toContain('961855');
    });

    it('keeps a value somebody else put there before we ever wrote', () => {
      expect(one({}, 961856, '5', undefined).decision).toBe('blocked-edited-by-person');
    });

    it('applies when the mapping gives no policy', () => {
      const noPolicy = { ...mappingOf({}).fields[0], policy: undefined } as unknown as MappingField;
      const plan = planFieldWrites({
        mapping: { version: 1, fields: [noPolicy] },
        attributes: { Population: 2 },
        current: { buyer_intel_population: '1' },
        ledger: {},
      });
      expect(plan.changes[0]).toMatchObject({ policy: 'ours', decision: 'blocked-edited-by-person' });
    });
  });

  describe("policy 'fill-empty'", () => {
    const field = {
      attribute: 'MainPhoneNumber',
      property: 'buyer_intel_phone',
      transform: 'text',
      policy: 'fill-empty',
    } as const;

    it('writes into an empty field', () => {
      expect(one(field, '(512) 974-2000', null)).toMatchObject({ decision: 'write', new: '(512) 974-2000' });
      expect(one(field, '(512) 974-2000', '')).toMatchObject({ decision: 'write', old: null });
    });

    it('never overwrites, not even the value we wrote', () => {
      expect(one(field, '(512) 974-2000', '(512) 555-0100').decision).toBe('blocked-not-empty');
      expect(one(field, '(512) 974-2000', '(512) 555-0100', '(512) 555-0100').decision).toBe(
        'blocked-not-empty',
      );
    });
  });

  describe('a yes/no field that cannot be empty (reads false until set)', () => {
    const flag = {
      attribute: 'HasCampusPolice',
      property: 'buyer_intel_campus_police',
      transform: 'boolean',
    } as const;
    const plan = (policy: 'ours' | 'fill-empty', current: string, ledger?: string, limited = true) =>
      planFieldWrites({
        mapping: mappingOf({ ...flag, policy }),
        attributes: { HasCampusPolice: true },
        current: { [flag.property]: current },
        ledger: ledger === undefined ? {} : { [flag.property]: ledger },
        limits: { stringLength: 255, textLength: 1000, boolReadsFalseWhenEmpty: limited },
      }).changes[0];

    it('fills false under ours (never written) and fill-empty', () => {
      expect(plan('ours', 'false')).toMatchObject({ decision: 'write', old: 'false', new: 'true' });
      expect(plan('fill-empty', 'false')).toMatchObject({ decision: 'write', new: 'true' });
    });

    it("keeps a person's false over our true, and false where the CRM has an empty state", () => {
      expect(plan('ours', 'false', 'true')?.decision).toBe('blocked-edited-by-person');
      expect(plan('ours', 'false', undefined, false)?.decision).toBe('blocked-edited-by-person');
      expect(plan('fill-empty', 'false', undefined, false)?.decision).toBe('blocked-not-empty');
    });
  });

  describe("policy 'overwrite'", () => {
    const field = {
      attribute: 'AiAdoptionScore',
      property: 'buyer_intel_ai_adoption_score',
      policy: 'overwrite',
    } as const;

    it('writes whenever the value differs, whoever changed it', () => {
      expect(one(field, 71, '64', '64').decision).toBe('write');
      expect(one(field, 71, '99', '64')).toMatchObject({ decision: 'write', old: '99', new: '71' });
      expect(one(field, 71, '99').decision).toBe('write');
      expect(one(field, 71, null).decision).toBe('write');
    });
  });

  it('does not write a value the field already holds (after normalising)', () => {
    for (const policy of ['ours', 'fill-empty', 'overwrite'] as const) {
      expect(one({ policy }, 100, '100').decision).toBe('unchanged');
      expect(one({ policy }, 100, '100.0').decision).toBe('unchanged');
      expect(
        one({ policy, transform: 'text', attribute: 'County' }, 'Travis County ', 'Travis County  ').decision,
      ).toBe('unchanged');
      expect(
        one(
          { policy, transform: 'date', attribute: 'FiscalYearStartDate' },
          '2025-10-01',
          '2025-10-01T00:00:00Z',
        ).decision,
      ).toBe('unchanged');
    }
    // equal to the current value but not to the ledger: nothing to write, nothing blocked
    expect(one({}, 100, '100', '90').decision).toBe('unchanged');
  });

  it('clears a field still holding what we wrote when the buyer has no value (any policy), and no other', () => {
    for (const policy of ['ours', 'fill-empty', 'overwrite'] as const) {
      for (const value of [null, undefined, '', '  ']) {
        // Still ours: the CRM shows the current buyer's data or none of ours.
        const cleared = one({ policy }, value, '961855', '961855');
        expect(cleared).toMatchObject({ decision: 'clear', new: null, old: '961855' });
        expect(cleared.reason).toContain('no Population');
        // A person's value (or one we never wrote) is left as it is.
        expect(one({ policy }, value, '961855', '900000')).toMatchObject({ decision: 'skip-no-value' });
        expect(one({ policy }, value, '961855')).toMatchObject({ decision: 'skip-no-value' });
        // Nothing to clear.
        expect(one({ policy }, value, null, '961855')).toMatchObject({ decision: 'skip-no-value' });
      }
    }
    // A value we could not read is no "no value": the field is left.
    expect(one({}, 'about a million', '961855', '961855')).toMatchObject({ decision: 'skip-no-value' });
  });

  it('skips a value that cannot be converted, saying why', () => {
    const change = one({ policy: 'overwrite' }, 'about a million', '961855');
    expect(change).toMatchObject({ decision: 'skip-no-value', new: null });
    expect(change.reason).toContain('"about a million" is not a valid integer');
  });

  it('skips an enum value that is not one of the dropdown options', () => {
    const field = {
      attribute: 'Type',
      property: 'buyer_intel_type',
      transform: 'enum',
      enumLabels: { SchoolDistrict: 'School District', City: 'City' },
    } as const;
    expect(one(field, 'SchoolDistrict', null)).toMatchObject({ decision: 'write', new: 'School District' });
    expect(one(field, 'School District', null)).toMatchObject({ decision: 'write', new: 'School District' });
    expect(one(field, 'Hospital', null)).toMatchObject({ decision: 'skip-no-value', new: null });
    // without enumLabels any value goes
    expect(one({ ...field, enumLabels: undefined }, 'Hospital', null)).toMatchObject({
      decision: 'write',
      new: 'Hospital',
    });
  });

  it('plans every field in mapping order and returns only the writes as updates', () => {
    const mapping = mappingOf(
      { attribute: 'Population', property: 'buyer_intel_population', transform: 'integer' },
      {
        attribute: 'Population',
        property: 'buyer_intel_population_exact',
        transform: 'number',
        policy: 'overwrite',
      },
      { attribute: 'County', property: 'buyer_intel_county', transform: 'text' },
      { attribute: 'Url', property: 'buyer_intel_url', transform: 'url', policy: 'fill-empty' },
      { attribute: 'LmsArray', property: 'buyer_intel_lms', transform: 'list' },
      { attribute: 'BudgetAmount', property: 'buyer_intel_budget', transform: 'currency' },
    );
    const plan = planFieldWrites({
      mapping,
      attributes: {
        Population: 961855.4,
        County: 'Travis County',
        Url: 'austintexas.gov',
        LmsArray: ['Canvas', 'Schoology'],
        BudgetAmount: null,
      },
      current: {
        buyer_intel_population: '950000',
        buyer_intel_population_exact: '961855.4',
        buyer_intel_county: 'Travis',
        buyer_intel_url: 'https://www.austintexas.gov/',
        buyer_intel_lms: null,
        buyer_intel_budget: '4500000000',
      },
      ledger: { buyer_intel_population: '950000', buyer_intel_county: 'Travis County' },
    });
    expect(plan.changes.map((c) => [c.property, c.decision])).toEqual([
      ['buyer_intel_population', 'write'],
      ['buyer_intel_population_exact', 'unchanged'],
      ['buyer_intel_county', 'blocked-edited-by-person'],
      ['buyer_intel_url', 'blocked-not-empty'],
      ['buyer_intel_lms', 'write'],
      ['buyer_intel_budget', 'skip-no-value'],
    ]);
    expect(plan.updates).toEqual({ buyer_intel_population: '961855', buyer_intel_lms: 'Canvas;Schoology' });
  });
});
