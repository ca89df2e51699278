import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAPPING, mappingFromFile } from '../../src/map/default-mapping.ts';
import { detectFormat, loadMapping, MappingError, parseMapping } from '../../src/map/load-mapping.ts';
import { closestMatch, mappingSchema } from '../../src/map/mapping-schema.ts';

function errorOf(fn: () => unknown): MappingError {
  try {
    fn();
  } catch (err) {
    if (err instanceof MappingError) return err;
    throw err;
  }
  throw new Error('expected a MappingError');
}

/** The problem lines of a MappingError's message (the first line is the header). */
function problemLines(err: MappingError): string[] {
  return err.message.split('\n').slice(1);
}

const GOOD_YAML = `# our mapping
version: 1
fields:
  - attribute: Population
    property: buyer_intel_population
    transform: integer
  - attribute: Type
    property: buyer_intel_type
    transform: enum
    policy: overwrite
    enumLabels:
      SchoolDistrict: School District
  - attribute: Population
    property: buyer_intel_population_copy
    label: Population (copy)
    transform: number
    policy: fill-empty
`;

describe('parseMapping', () => {
  it('reads a valid YAML mapping, defaulting the policy to "ours"', () => {
    const mapping = parseMapping(GOOD_YAML, 'mapping.yaml');
    expect(mapping.version).toBe(1);
    expect(mapping.fields.map((f) => [f.attribute, f.property, f.policy])).toEqual([
      ['Population', 'buyer_intel_population', 'ours'],
      ['Type', 'buyer_intel_type', 'overwrite'],
      ['Population', 'buyer_intel_population_copy', 'fill-empty'],
    ]);
    expect(mapping.fields[1]?.enumLabels).toEqual({ SchoolDistrict: 'School District' });
    expect(mapping.fields[2]?.label).toBe('Population (copy)');
  });

  it('reads the same mapping as JSON, by extension or by content', () => {
    const json = JSON.stringify(parseMapping(GOOD_YAML, 'mapping.yaml'), null, 2);
    expect(parseMapping(json, 'mapping.json')).toEqual(parseMapping(GOOD_YAML, 'm.yml'));
    expect(parseMapping(json, 'mapping.conf')).toEqual(parseMapping(GOOD_YAML, 'mapping'));
    expect(detectFormat(json, 'mapping.conf')).toBe('json');
    expect(detectFormat(GOOD_YAML, 'mapping')).toBe('yaml');
    expect(detectFormat('{}', 'x.yaml')).toBe('yaml');
  });

  it('lists every problem of a YAML file at once, each with file:line:column and path', () => {
    const text = [
      'version: 1', // 1
      'fields:', // 2
      '  - attribute: Population', // 3
      '    property: buyer_intel_population', // 4
      '    transform: integer', // 5
      '  - attribute: Populaton', // 6
      '    property: buyer_intel_pop', // 7
      '    transform: integer', // 8
      '  - attribute: County', // 9
      '    property: buyer_intel_population', // 10
      '    transform: texte', // 11
      '',
    ].join('\n');
    const err = errorOf(() => parseMapping(text, 'mapping.yaml'));
    expect(err.name).toBe('MappingError');
    expect(err.problems).toHaveLength(3);
    expect(problemLines(err)).toEqual([
      'mapping.yaml:6:16 fields[1].attribute: "Populaton" is not a BuyerField key (did you mean "Population"?)',
      'mapping.yaml:10:15 fields[2].property: duplicate property "buyer_intel_population" (already mapped by fields[0]); each CRM field takes one attribute',
      expect.stringMatching(
        /^mapping\.yaml:11:16 fields\[2\]\.transform: "texte" is not a transform .*did you mean "text"/,
      ),
    ]);
    expect(err.message.split('\n')[0]).toBe('invalid mapping file mapping.yaml (3 problems):');
  });

  it('lists every problem of a JSON file at once, with lines', () => {
    const text = `{
  "version": 1,
  "fields": [
    { "attribute": "Population", "property": "buyer_intel_population", "transform": "integer" },
    { "attribute": "Url", "property": "Buyer-URL", "transform": "url" },
    { "attribute": "Type", "property": "buyer_intel_type", "transform": "text", "enumLabels": { "City": "City" } },
    { "attribute": "County", "property": "buyer_intel_county", "transform": "text", "policy": "always" }
  ]
}`;
    const err = errorOf(() => parseMapping(text, 'mapping.json'));
    expect(err.problems.map((p) => [p.line, p.path])).toEqual([
      [5, 'fields[1].property'],
      [6, 'fields[2].enumLabels'],
      [7, 'fields[3].policy'],
    ]);
    const lines = problemLines(err);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^mapping\.json:\d+:\d+ fields\[\d\]\.\w+: /);
    expect(lines[1]).toContain('enumLabels is only allowed with transform "enum"');
    expect(lines[2]).toContain('"always" is not a policy');
  });

  it('suggests the closest BuyerField key for an unknown attribute', () => {
    const err = errorOf(() =>
      parseMapping(
        'version: 1\nfields:\n  - attribute: budgetamount\n    property: b\n    transform: currency\n',
        'm.yaml',
      ),
    );
    expect(err.problems).toHaveLength(1);
    expect(err.message).toContain(
      'm.yaml:3:16 fields[0].attribute: "budgetamount" is not a BuyerField key (did you mean "BudgetAmount"?)',
    );
    const far = errorOf(() =>
      parseMapping(
        'version: 1\nfields:\n  - attribute: Xyzzy\n    property: b\n    transform: text\n',
        'm.yaml',
      ),
    );
    expect(far.problems[0]?.message).toBe('"Xyzzy" is not a BuyerField key');
  });

  it('reports a duplicate property even when an attribute is mapped twice to it', () => {
    const text = `version: 1
fields:
  - { attribute: Population, property: buyer_intel_population, transform: integer }
  - { attribute: Population, property: buyer_intel_population, transform: number }
`;
    const err = errorOf(() => parseMapping(text, 'm.yaml'));
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatchObject({ line: 4, path: 'fields[1].property' });
    expect(err.problems[0]?.message).toContain('duplicate property "buyer_intel_population"');
  });

  it('reports unknown keys, missing keys, a bad version and a provenance property', () => {
    const text = `version: 2
fields:
  - attribute: Population
    property: buyer_intel_population
    transform: integer
    polcy: ours
  - attribute: Name
    property: buyer_intel_buyer_name
    transform: text
  - property: buyer_intel_url
extra: true
`;
    const err = errorOf(() => parseMapping(text, 'm.yaml'));
    expect(err.problems.map((p) => `${p.line}:${p.column} ${p.path}`)).toEqual([
      '1:10 version',
      '6:5 fields[0].polcy',
      '8:15 fields[1].property',
      '10:5 fields[2].attribute',
      '10:5 fields[2].transform',
      '11:1 extra',
    ]);
    const messages = err.problems.map((p) => p.message);
    expect(messages[0]).toContain('unsupported version 2');
    expect(messages[1]).toBe('unknown key "polcy" (did you mean "policy"?)');
    expect(messages[2]).toContain('provenance');
    expect(messages[3]).toBe('missing (required)');
  });

  it('reports YAML syntax errors with their line', () => {
    const text = 'version: 1\nfields:\n  - attribute: Url\n    property: x\n   transform: url\n';
    const err = errorOf(() => parseMapping(text, 'bad.yaml'));
    expect(err.problems.length).toBeGreaterThanOrEqual(1);
    expect(err.problems[0]).toMatchObject({ file: 'bad.yaml', line: 5, path: null });
    expect(problemLines(err)[0]).toMatch(/^bad\.yaml:5:\d+: YAML syntax error: /);
  });

  it('reports YAML duplicate keys by name', () => {
    const err = errorOf(() =>
      parseMapping(
        'version: 1\nfields:\n  - attribute: Url\n    property: x\n    property: y\n    transform: url\n',
        'd.yaml',
      ),
    );
    expect(problemLines(err)).toEqual(['d.yaml:5:5: duplicate key "property" (each key once per object)']);
  });

  it('reports JSON syntax errors with their line, also what YAML would tolerate', () => {
    const trailing = errorOf(() => parseMapping('{\n  "version": 1,\n  "fields": [],\n}\n', 'm.json'));
    expect(trailing.problems).toHaveLength(1);
    expect(trailing.problems[0]).toMatchObject({ line: 4, column: 1, path: null });
    expect(trailing.message).toMatch(/m\.json:4:1: JSON syntax error: /);

    const truncated = errorOf(() => parseMapping('{\n  "version": 1,\n  "fields": [\n', 'm.json'));
    expect(truncated.problems[0]?.line).toBe(4);

    const dup = errorOf(() =>
      parseMapping('{\n  "version": 1,\n  "version": 1,\n  "fields": []\n}', 'm.json'),
    );
    expect(problemLines(dup)).toEqual(['m.json:3:3: duplicate key "version" (each key once per object)']);
  });

  it('reports an empty file', () => {
    const err = errorOf(() => parseMapping('', 'empty.yaml'));
    expect(problemLines(err)).toEqual([
      'empty.yaml:1:1 (root): expected an object with "version" and "fields", but it is empty',
    ]);
  });

  it('reports wrong value types', () => {
    const err = errorOf(() =>
      parseMapping(
        'version: 1\nfields:\n  - attribute: 12\n    property: [a]\n    transform: text\n',
        't.yaml',
      ),
    );
    expect(err.problems.map((p) => `${p.line} ${p.path}: ${p.message}`)).toEqual([
      '3 fields[0].attribute: expected a BuyerField key, got number 12',
      '4 fields[0].property: expected a CRM field name, got a list',
    ]);
  });
});

describe('loadMapping / mappingFromFile', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mapping-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a file, names it in errors, and turns an unreadable file into a MappingError', async () => {
    const good = join(dir, 'good.yaml');
    await writeFile(good, GOOD_YAML);
    expect((await loadMapping(good)).fields).toHaveLength(3);
    expect(await mappingFromFile(good)).toEqual(await loadMapping(good));

    const bad = join(dir, 'bad.json');
    await writeFile(
      bad,
      '{"version": 1, "fields": [{"attribute": "Populaton", "property": "p", "transform": "integer"}]}',
    );
    const err = await loadMapping(bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MappingError);
    expect((err as MappingError).message).toContain(`${bad}:1:41 fields[0].attribute:`);

    const missing = await loadMapping(join(dir, 'nope.yaml')).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(MappingError);
    expect((missing as MappingError).message).toContain('cannot read the mapping file');
  });

  it('returns the default mapping without a path', async () => {
    expect(await mappingFromFile(undefined)).toBe(DEFAULT_MAPPING);
  });
});

describe('mappingSchema', () => {
  it('applies the same rules when used directly', () => {
    const result = mappingSchema.safeParse({
      version: 1,
      fields: [
        { attribute: 'Url', property: 'buyer_intel_url', transform: 'url' },
        { attribute: 'Url', property: 'buyer_intel_url', transform: 'url' },
        { attribute: 'City', property: 'buyer_intel_city', transform: 'text', enumLabels: {} },
      ],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual([
      'fields.1.property',
      'fields.2.enumLabels',
    ]);
  });

  it('closestMatch', () => {
    expect(closestMatch('Populaton', ['Population', 'County'])).toBe('Population');
    expect(closestMatch('county', ['Population', 'County'])).toBe('County');
    expect(closestMatch('PoplutaionTrend', ['PopulationTrend'])).toBe('PopulationTrend');
    expect(closestMatch('Zebra', ['Population', 'County'])).toBeUndefined();
  });
});
