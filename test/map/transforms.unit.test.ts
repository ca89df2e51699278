import { describe, expect, it } from 'vitest';
import type { FieldTransform } from '../../src/map/mapping-schema.ts';
import { comparableValue, enumOptionValues, plainDecimal, transformValue } from '../../src/map/transforms.ts';

type Row = [transform: FieldTransform, input: unknown, expected: string | null];

const cyclic: Record<string, unknown> = {};
cyclic.self = cyclic;

const ROWS: Row[] = [
  // empty values never become a value
  ['text', null, null],
  ['text', undefined, null],
  ['text', '', null],
  ['text', '   ', null],
  ['number', null, null],
  ['list', [], null],
  // text
  ['text', '  City of Austin  ', 'City of Austin'],
  ['text', 42, '42'],
  ['text', 1e21, '1000000000000000000000'],
  ['text', true, 'true'],
  ['text', { a: 1 }, '{"a":1}'],
  ['text', ['a', 'b'], '["a","b"]'],
  ['text', cyclic, null],
  ['text', () => 1, null],
  // number
  ['number', 961855, '961855'],
  ['number', 1234.5, '1234.5'],
  ['number', -0, '0'],
  ['number', 1e21, '1000000000000000000000'],
  ['number', 1.5e-7, '0.00000015'],
  ['number', '1,250,000', '1250000'],
  ['number', ' 12.50 ', '12.5'],
  ['number', '12abc', null],
  ['number', 'NaN', null],
  ['number', Number.NaN, null],
  ['number', Number.POSITIVE_INFINITY, null],
  ['number', true, null],
  ['number', {}, null],
  // integer rounds
  ['integer', 961855.4, '961855'],
  ['integer', 961855.5, '961856'],
  ['integer', '2024', '2024'],
  ['integer', -0.4, '0'],
  // percent as given
  ['percent', 12.5, '12.5'],
  ['percent', 0.125, '0.125'],
  ['percent', '12.5%', '12.5'],
  ['percent', 100, '100'],
  // currency: whole dollars
  ['currency', 4_500_000_000, '4500000000'],
  ['currency', 1234.56, '1235'],
  ['currency', '$1,200,000', '1200000'],
  ['currency', '1200000 USD', '1200000'],
  ['currency', 'lots', null],
  // date
  ['date', '2025-10-01', '2025-10-01'],
  ['date', '2025-10-01T00:00:00Z', '2025-10-01'],
  ['date', '2025-10-01T23:30:00.000-05:00', '2025-10-01'],
  ['date', '2025-10-01 08:00', '2025-10-01'],
  ['date', new Date('2025-07-01T12:00:00Z'), '2025-07-01'],
  ['date', '2025-02-30', null],
  ['date', '2025-13-01', null],
  ['date', '2025-10-01T25:00:00Z', null],
  ['date', '10/01/2025', null],
  ['date', 'soon', null],
  ['date', 1_700_000_000_000, null],
  ['date', new Date('nope'), null],
  // list
  ['list', ['Canvas', 'Schoology'], 'Canvas;Schoology'],
  ['list', [' Canvas ', '', null, 'Canvas', 'Moodle'], 'Canvas;Moodle'],
  ['list', ['a;b', 'c'], 'a,b;c'],
  ['list', [1, 2.5, true], '1;2.5;true'],
  ['list', 'Canvas ; Schoology', 'Canvas;Schoology'],
  ['list', 'Canvas', 'Canvas'],
  // url
  ['url', 'https://www.austintexas.gov', 'https://www.austintexas.gov/'],
  ['url', 'austintexas.gov/budget', 'https://austintexas.gov/budget'],
  ['url', '  www.Example.GOV/Path?q=1 ', 'https://www.example.gov/Path?q=1'],
  ['url', 'http://example.org/a b', null],
  ['url', 'http://example.org/x', 'http://example.org/x'],
  ['url', 'ftp://example.org', null],
  ['url', 'mailto:info@example.org', null],
  ['url', 'not a url', null],
  ['url', 'localhost', 'https://localhost/'],
  ['url', 'intranet', null],
  ['url', 42, null],
  // enum
  ['enum', 'Very Strongly Increasing', 'Very Strongly Increasing'],
  ['enum', 7, '7'],
  // boolean
  ['boolean', true, 'true'],
  ['boolean', false, 'false'],
  ['boolean', 'Yes', 'true'],
  ['boolean', 'FALSE', 'false'],
  ['boolean', 0, 'false'],
  ['boolean', 2, null],
  ['boolean', 'maybe', null],
];

describe('transformValue', () => {
  it.each(ROWS)('%s %o → %o', (transform, input, expected) => {
    expect(transformValue(input, { transform, enumLabels: undefined })).toBe(expected);
  });

  it('enum uses enumLabels, falling back to the value itself', () => {
    const field = {
      transform: 'enum' as const,
      enumLabels: { SchoolDistrict: 'School District', City: 'City' },
    };
    expect(transformValue('SchoolDistrict', field)).toBe('School District');
    expect(transformValue('School District', field)).toBe('School District');
    expect(transformValue('Hospital', field)).toBe('Hospital');
    expect(transformValue('constructor', field)).toBe('constructor');
    expect(transformValue('', field)).toBeNull();
  });

  it('never throws on odd input', () => {
    const odd: unknown[] = [Symbol('x'), 10n, new Map(), Object.create(null), [[[]]], cyclic, () => 0];
    const transforms: FieldTransform[] = [
      'text',
      'number',
      'integer',
      'percent',
      'currency',
      'date',
      'list',
      'url',
      'enum',
      'boolean',
    ];
    for (const transform of transforms) {
      for (const value of odd) {
        expect(() => transformValue(value, { transform, enumLabels: undefined })).not.toThrow();
      }
    }
    expect(transformValue(10n, { transform: 'number', enumLabels: undefined })).toBe('10');
  });
});

describe('plainDecimal', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [123, '123'],
    [-1.5e21, '-1500000000000000000000'],
    [1.234e-10, '0.0000000001234'],
    [Number.NaN, null],
  ])('%d → %s', (n, expected) => {
    expect(plainDecimal(n)).toBe(expected);
  });
});

describe('comparableValue', () => {
  it('normalises what a CRM may hold back', () => {
    const number = { transform: 'number' as const, enumLabels: undefined };
    expect(comparableValue('100.0', number)).toBe(comparableValue('100', number));
    expect(comparableValue(' 100 ', { transform: 'integer', enumLabels: undefined })).toBe('100');
    expect(comparableValue('100.4', { transform: 'integer', enumLabels: undefined })).toBe('100.4');
    expect(comparableValue('2025-10-01T00:00:00.000Z', { transform: 'date', enumLabels: undefined })).toBe(
      '2025-10-01',
    );
    expect(comparableValue('a ; b', { transform: 'list', enumLabels: undefined })).toBe('a;b');
    expect(comparableValue('Trailing  ', { transform: 'text', enumLabels: undefined })).toBe('Trailing');
    expect(comparableValue(null, number)).toBe('');
    expect(comparableValue('n/a', number)).toBe('n/a');
  });
});

describe('enumOptionValues', () => {
  it('is the distinct labels of an enum field with enumLabels, else null', () => {
    expect(
      enumOptionValues({ transform: 'enum', enumLabels: { A: 'Alpha', a: 'Alpha', B: 'Beta' } }),
    ).toEqual(['Alpha', 'Beta']);
    expect(enumOptionValues({ transform: 'enum', enumLabels: undefined })).toBeNull();
    expect(enumOptionValues({ transform: 'text', enumLabels: { A: 'Alpha' } })).toBeNull();
  });
});
