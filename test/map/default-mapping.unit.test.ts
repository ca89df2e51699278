import { describe, expect, it } from 'vitest';
import { BUYER_FIELD_LABELS } from '../../src/buyer-intel/fields.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS } from '../../src/map/field-definitions.ts';
import { parseMapping } from '../../src/map/load-mapping.ts';
import { type Mapping, mappingSchema, PROPERTY_PATTERN } from '../../src/map/mapping-schema.ts';
import { planFieldWrites } from '../../src/map/plan.ts';

describe('DEFAULT_MAPPING', () => {
  it('validates, has 20–30 fields with unique buyer_intel_ properties', () => {
    expect(mappingSchema.safeParse(DEFAULT_MAPPING).success).toBe(true);
    const properties = DEFAULT_MAPPING.fields.map((f) => f.property);
    expect(properties.length).toBeGreaterThanOrEqual(20);
    expect(properties.length).toBeLessThanOrEqual(30);
    expect(new Set(properties).size).toBe(properties.length);
    for (const p of properties) {
      expect(p).toMatch(PROPERTY_PATTERN);
      expect(p.startsWith('buyer_intel_')).toBe(true);
      expect(Object.values(PROVENANCE_FIELDS)).not.toContain(p);
    }
  });

  it('round-trips through a JSON mapping file', () => {
    expect(parseMapping(JSON.stringify(DEFAULT_MAPPING), 'default.json')).toEqual(DEFAULT_MAPPING);
  });

  it('uses the policies the product expects', () => {
    const policy = (attribute: string) =>
      DEFAULT_MAPPING.fields.find((f) => f.attribute === attribute)?.policy;
    expect(policy('Population')).toBe('ours');
    expect(policy('NcesId')).toBe('overwrite');
    expect(policy('AiAdoptionScore')).toBe('overwrite');
    expect(policy('MainPhoneNumber')).toBe('fill-empty');
  });

  it('converts the sandbox-style values of a school district and a city', () => {
    const plan = planFieldWrites({
      mapping: DEFAULT_MAPPING,
      attributes: {
        Type: 'School District',
        Population: 961855,
        PopulationTrend: 'Strongly Increasing',
        BudgetAmount: 4_512_345_678,
        FiscalYearStartDate: '2025-10-01',
        FreeOrReducedLunchEligiblePercentage: 52.4,
        LmsArray: ['Canvas', 'Schoology'],
        PropensityToSpend: 'Open to Spend',
        Url: 'www.austinisd.org',
        IpedsIdNumeric: 228778,
        NcesId: '0612345',
      },
      current: {},
      ledger: {},
    });
    expect(plan.updates).toMatchObject({
      buyer_intel_type: 'School District',
      buyer_intel_population: '961855',
      buyer_intel_population_trend: 'Strongly Increasing',
      buyer_intel_budget_amount: '4512345678',
      buyer_intel_fiscal_year_start_date: '2025-10-01',
      buyer_intel_free_reduced_lunch_pct: '52.4',
      buyer_intel_lms: 'Canvas;Schoology',
      buyer_intel_propensity_to_spend: 'Open to Spend',
      buyer_intel_url: 'https://www.austinisd.org/',
      buyer_intel_ipeds_id: '228778',
      buyer_intel_nces_id: '0612345',
    });
    expect(plan.updates).not.toHaveProperty('buyer_intel_county');
    const typeOptions =
      fieldDefinitions(DEFAULT_MAPPING).find((d) => d.name === 'buyer_intel_type')?.options ?? [];
    expect(typeOptions.map((o) => o.value)).toEqual(
      expect.arrayContaining(['School District', 'City', 'Higher Education']),
    );
  });
});

describe('fieldDefinitions', () => {
  const mapping: Mapping = mappingSchema.parse({
    version: 1,
    fields: [
      { attribute: 'Population', property: 'p_integer', transform: 'integer' },
      { attribute: 'EmployeeFte', property: 'p_number', transform: 'number' },
      { attribute: 'BlackPercentage', property: 'p_percent', transform: 'percent' },
      { attribute: 'BudgetAmount', property: 'p_currency', transform: 'currency', label: 'Budget ($)' },
      { attribute: 'FiscalYearStartDate', property: 'p_date', transform: 'date' },
      { attribute: 'Url', property: 'p_url', transform: 'url' },
      { attribute: 'HasCampusPolice', property: 'p_bool', transform: 'boolean' },
      {
        attribute: 'Type',
        property: 'p_enum',
        transform: 'enum',
        enumLabels: { SchoolDistrict: 'School District', City: 'City' },
      },
      { attribute: 'PopulationTrend', property: 'p_enum_free', transform: 'enum' },
      { attribute: 'LmsArray', property: 'p_list', transform: 'list' },
      { attribute: 'County', property: 'p_text', transform: 'text' },
    ],
  });
  const defs = fieldDefinitions(mapping);
  const byName = new Map(defs.map((d) => [d.name, d]));

  it('types each field from its transform', () => {
    expect(Object.fromEntries(defs.slice(0, 11).map((d) => [d.name, d.type]))).toEqual({
      p_integer: 'number',
      p_number: 'number',
      p_percent: 'number',
      p_currency: 'number',
      p_date: 'date',
      p_url: 'url',
      p_bool: 'bool',
      p_enum: 'enumeration',
      p_enum_free: 'string',
      p_list: 'text',
      p_text: 'string',
    });
    expect(byName.get('p_enum')?.options).toEqual([
      { value: 'School District', label: 'School District' },
      { value: 'City', label: 'City' },
    ]);
    expect(byName.get('p_enum_free')?.options).toBeUndefined();
  });

  it('labels from the mapping or the attribute, and names the source attribute', () => {
    expect(byName.get('p_currency')?.label).toBe('Budget ($)');
    expect(byName.get('p_integer')?.label).toBe(BUYER_FIELD_LABELS.Population);
    for (const [i, field] of mapping.fields.entries())
      expect(defs[i]?.description).toContain(field.attribute);
  });

  it('adds the provenance fields, the same for every mapping', () => {
    const provenance = defs.slice(mapping.fields.length);
    expect(provenance).toEqual(fieldDefinitions({ version: 1, fields: [] }));
    expect(provenance.map((d) => [d.name, d.type])).toEqual([
      ['buyer_intel_buyer_id', 'string'],
      ['buyer_intel_buyer_name', 'string'],
      ['buyer_intel_match_confidence', 'number'],
      ['buyer_intel_status', 'enumeration'],
      ['buyer_intel_match_reason', 'text'],
      ['buyer_intel_candidates', 'text'],
      ['buyer_intel_last_enriched_at', 'datetime'],
      ['buyer_intel_duplicate_of', 'string'],
    ]);
    expect(provenance.map((d) => d.name).sort()).toEqual(Object.values(PROVENANCE_FIELDS).sort());
    expect(byName.get(PROVENANCE_FIELDS.status)?.options).toEqual([
      { value: 'enriched', label: 'Enriched' },
      { value: 'needs_review', label: 'Needs review' },
      { value: 'no_match', label: 'No match' },
      { value: 'error', label: 'Error' },
    ]);
  });

  it('gives every field of the default mapping a unique name and label', () => {
    const all = fieldDefinitions(DEFAULT_MAPPING);
    expect(new Set(all.map((d) => d.name)).size).toBe(all.length);
    expect(new Set(all.map((d) => d.label)).size).toBe(all.length);
    for (const d of all) expect(d.description.length).toBeGreaterThan(10);
  });
});
