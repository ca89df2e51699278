// Structure generators for the fuzz (issue 45): what a generic arbitrary almost never builds and what
// broke before — JSON nested far past our 32-level bound (10,000 levels answered 500), bodies as wide
// as the caps, numbers JSON.stringify would respell (-0, 1e400, 400-digit integers), dates at the
// edges of JavaScript's and PostgreSQL's ranges (a cursor dated before 4713 BC answered 500), and
// every class of string. Sizes go by powers of two so that every order of magnitude is tried.
import fc from 'fast-check';

/** A JSON text kept as written: a number JSON.stringify would respell, or a structure built as text. */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** JSON.stringify that writes a RawJson's text as it is (so `-0` stays `-0`, `1e400` stays `1e400`). */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : jsonText(v))).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * 0, 1, 2, 4 … 2^max, and the values either side of the bounds that matter. Small sizes are the
 * most common (they reach the most checks, cheaply); every power still comes up, one run in ~30 at
 * the large end, so that a 100,000-run exploration tries each thousands of times.
 */
export const powers = (max: number, extra: number[]): fc.Arbitrary<number> => {
  const exponent = (min: number, top: number) =>
    fc.integer({ min, max: Math.min(top, max) }).map((k) => 2 ** k);
  return fc.oneof(
    { weight: 12, arbitrary: exponent(0, 6) },
    { weight: 4, arbitrary: exponent(Math.min(7, max), 11) },
    { weight: 2, arbitrary: exponent(Math.min(12, max), max) },
    { weight: 2, arbitrary: fc.constantFrom(0, ...extra) },
  );
};

/** Nesting depths: up to 8,192 by powers, and the edges of our 32-level bound and of 10,000. */
export const depth = powers(13, [31, 32, 33, 9_999, 10_000]);

const LEAVES = ['0', '""', 'null', '"x"', '{}', '[]', '-0', '1e400'];

/** A JSON text nested `depth` levels deep: arrays, objects, both in turn, or left unclosed. */
export const deepJson: fc.Arbitrary<RawJson> = fc
  .record({
    depth,
    shape: fc.constantFrom('array', 'object', 'mixed', 'unclosed', 'in-key'),
    leaf: fc.constantFrom(...LEAVES),
  })
  .map(({ depth: n, shape, leaf }) => {
    if (shape === 'array') return new RawJson(`${'['.repeat(n)}${leaf}${']'.repeat(n)}`);
    if (shape === 'object') return new RawJson(`${'{"a":'.repeat(n)}${leaf}${'}'.repeat(n)}`);
    if (shape === 'unclosed') return new RawJson(`${'['.repeat(n)}${leaf}`);
    if (shape === 'in-key') return new RawJson(`${'[{"accountId":'.repeat(n)}${leaf}${'}]'.repeat(n)}`);
    const open = Array.from({ length: n }, (_, i) => (i % 2 ? '{"k":' : '[')).join('');
    const close = Array.from({ length: n }, (_, i) => (i % 2 ? '}' : ']'))
      .reverse()
      .join('');
    return new RawJson(`${open}${leaf}${close}`);
  });

/** Widths up to 2^17 elements (¼ MB of `0,`: past the API's 64 kB, the provider webhook's 256 kB). */
export const width = powers(17, [99, 100, 101, 500, 501, 1_000, 1_001]);

/** Arrays and objects `width` wide: small elements, distinct keys, one key repeated, long strings. */
export const wideJson: fc.Arbitrary<RawJson> = fc
  .record({ width, shape: fc.constantFrom('array', 'keys', 'same-key', 'strings', 'objects') })
  .map(({ width: n, shape }) => {
    const items = (f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(',');
    if (shape === 'array') return new RawJson(`[${items(() => '0')}]`);
    if (shape === 'keys') return new RawJson(`{${items((i) => `"k${i}":${i}`)}}`);
    if (shape === 'same-key') return new RawJson(`{${items((i) => `"accountId":"${i}"`)}}`);
    if (shape === 'objects') return new RawJson(`[${items((i) => `{"accountId":"${i + 1}"}`)}]`);
    return new RawJson(JSON.stringify('x'.repeat(n)));
  });

/** Numbers at and past every edge, as JSON writes them (some only a RawJson keeps). */
const RAW_NUMBERS = [
  '0',
  '-0',
  '0.0',
  '-0.0e0',
  '1',
  '-1',
  '1e308',
  '-1e308',
  '1.7976931348623157e308',
  '1e309',
  '-1e309',
  '5e-324',
  '1e-400',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '2147483648',
  '-2147483649',
  '0.1e1',
  '1E+2',
  '123456789012345678901234567890',
  '0.30000000000000004',
];
/** What JSON has no number for, spelled as the strings a caller sends instead. */
const NUMBER_LIKE_STRINGS = [
  'NaN',
  '-NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '0x10',
  '1_000',
  '1,5',
  '٣',
  '１',
  '+1',
  '.5',
  '5.',
  '00',
  '-',
];

export const hugeNumber: fc.Arbitrary<RawJson> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((t) => new RawJson(t)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(...NUMBER_LIKE_STRINGS).map((s) => new RawJson(JSON.stringify(s))),
  },
  // Integers as long as a bigint column's and far past it, bare and as digit strings.
  {
    weight: 2,
    arbitrary: fc
      .record({
        digits: powers(12, [19, 20, 309, 310]),
        quoted: fc.boolean(),
        sign: fc.constantFrom('', '-'),
      })
      .map(({ digits, quoted, sign }) => {
        const n = `${sign}${'9'.repeat(Math.max(1, digits))}`;
        return new RawJson(quoted ? `"${n}"` : n);
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .double()
      .map((d) => new RawJson(Number.isFinite(d) ? String(d) : JSON.stringify(String(d)))),
  },
);

const pad = (n: number, width: number) => String(Math.abs(n)).padStart(width, '0');
/** An ISO year: four digits in 0000-9999, else the expanded ±YYYYYY form JavaScript writes. */
const isoYear = (y: number) => (y >= 0 && y <= 9999 ? pad(y, 4) : `${y < 0 ? '-' : '+'}${pad(y, 6)}`);

/** Years at the edges: ISO's 0000 and 9999, PostgreSQL's 4713 BC and 294276 AD, JavaScript's ±275760. */
const EDGE_YEARS = [
  0, 1, 1969, 1970, 2038, 9999, 10_000, -1, -4712, -4713, -4714, 275_760, 275_761, -271_821, -271_822,
  294_276, 294_277, 999_999, -999_999,
];
const OFFSETS = [
  'Z',
  '',
  '+00:00',
  '-00:00',
  '+14:00',
  '-12:00',
  '+23:59',
  '+24:00',
  '+99:99',
  '+0530',
  'z',
  ' UTC',
];
const TIMES = [
  '00:00:00',
  '23:59:59',
  '23:59:60',
  '24:00:00',
  '00:00:00.000000001',
  '12:00',
  '25:61:61',
  'T',
];
const RAW_DATES = [
  '0000-00-00',
  '2026-02-29',
  '2024-02-29T00:00:00Z',
  '2026-13-45T00:00:00Z',
  '2016-12-31T23:59:60Z',
  '1970-01-01T00:00:00.000Z',
  '+275760-09-13T00:00:00.000Z',
  '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00.000Z',
  '-271821-04-19T23:59:59.999Z',
  '-004713-11-24T00:00:00.000Z',
  '-004714-11-23T23:59:59.999Z',
  '+294276-12-31T23:59:59.999Z',
  '+294277-01-01T00:00:00.000Z',
  'infinity',
  '-infinity',
  'epoch',
  'now',
  'today',
  'allballs',
  '8640000000000000',
  '-8640000000000001',
  '2026-01-01T00:00:00Z\u0000',
  '２０２６-01-01',
  '2026-W01-1',
  '2026-001',
  'Mon, 01 Jan 2026 00:00:00 GMT',
  '1/2/3',
];

/** Dates at the ranges' edges: raw spellings, and edge years with any month, day, time and offset. */
export const edgeDate: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...RAW_DATES) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        year: fc.oneof(fc.constantFrom(...EDGE_YEARS), fc.integer({ min: -300_000, max: 300_000 })),
        month: fc.integer({ min: 0, max: 13 }),
        day: fc.integer({ min: 0, max: 32 }),
        time: fc.option(fc.constantFrom(...TIMES), { nil: undefined }),
        offset: fc.constantFrom(...OFFSETS),
      })
      .map(({ year, month, day, time, offset }) => {
        const date = `${isoYear(year)}-${pad(month, 2)}-${pad(day, 2)}`;
        return time === undefined ? date : `${date}T${time}${offset}`;
      }),
  },
  // Valid instants anywhere in JavaScript's range, as toISOString writes them.
  { weight: 1, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) },
);

/** Epoch milliseconds at the edges (HubSpot's `occurredAt`, our timestamps): JSON numbers. */
export const edgeEpochMs: fc.Arbitrary<RawJson> = fc
  .oneof(
    fc.constantFrom(0, -1, 8.64e15, 8.64e15 + 1, -8.64e15 - 1, 2 ** 53 + 1, 253402300800000, -62135596800000),
    fc.integer({ min: -(2 ** 53), max: 2 ** 53 }),
  )
  .map((n) => new RawJson(String(n)));
