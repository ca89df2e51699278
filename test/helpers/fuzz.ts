// A small seeded stand-in for fast-check (not installed here): arbitraries that generate values from a
// seed, and `assertProperty`, which runs a property over `numRuns` generated values and throws with the
// seed and the failing value. The shapes mirror fast-check's (`fc.constantFrom`, `fc.oneof`,
// `fc.record`, `fc.asyncProperty` + `fc.assert({ seed, numRuns })`), so swapping it in is mechanical;
// what fast-check adds (shrinking to a minimal counterexample) this does not.

export type Rng = () => number;

/** mulberry32: a tiny, good-enough PRNG so a failing run can be replayed from its seed. */
export function rngOf(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Arbitrary<T> {
  generate(rng: Rng): T;
}

const arb = <T>(generate: (rng: Rng) => T): Arbitrary<T> => ({ generate });
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;

export const constantFrom = <T>(...items: T[]): Arbitrary<T> => arb((rng) => pick(rng, items));
export const oneof = <T>(...arbs: Arbitrary<T>[]): Arbitrary<T> =>
  arb((rng) => pick(rng, arbs).generate(rng));
export const integer = (min: number, max: number): Arbitrary<number> =>
  arb((rng) => min + Math.floor(rng() * (max - min + 1)));
export const option = <T>(a: Arbitrary<T>, freq = 0.5): Arbitrary<T | undefined> =>
  arb((rng) => (rng() < freq ? a.generate(rng) : undefined));
export const array = <T>(a: Arbitrary<T>, maxLength: number): Arbitrary<T[]> =>
  arb((rng) => Array.from({ length: Math.floor(rng() * (maxLength + 1)) }, () => a.generate(rng)));
export const record = <T extends Record<string, unknown>>(
  shape: {
    [K in keyof T]: Arbitrary<T[K]>;
  },
): Arbitrary<T> =>
  arb((rng) => {
    const out: Record<string, unknown> = {};
    for (const [k, a] of Object.entries(shape)) out[k] = (a as Arbitrary<unknown>).generate(rng);
    return out as T;
  });
export const map = <T, U>(a: Arbitrary<T>, fn: (t: T) => U): Arbitrary<U> =>
  arb((rng) => fn(a.generate(rng)));

/**
 * Strings an attacker tries: NULs, lone surrogates, controls, huge and tiny numbers, dates that are not,
 * path tricks, BullMQ's own key names, base64url cursors of odd JSON, ordinary words, and joins of them.
 */
const PIECES = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '😀',
  '\u202e',
  '\n',
  '\r\n',
  '\t',
  '%',
  '%00',
  '%ED%A0%80',
  '../',
  '..',
  '.',
  '~',
  '~~',
  "'",
  '"',
  '<script>',
  '\\',
  '/',
  '?',
  '#',
  '&',
  '=',
  '0',
  '-1',
  '1',
  '1.5',
  'NaN',
  'Infinity',
  '1e309',
  '9999999999999999999',
  '99999999999999999999999999',
  '123456789012345678',
  '2026-13-45',
  'not-a-date',
  '2026-01-01T00:00:00Z',
  'events',
  'completed',
  'failed',
  'stalled-check',
  'id',
  'meta',
  'wait',
  'paused',
  'repeat',
  'hubspot',
  'salesforce',
  'pipedrive',
  '00D000000000001AAA',
  '001000000000001AAA',
  '12345',
  '__proto__',
  'constructor',
  'true',
  'null',
  '00000000-0000-0000-0000-000000000000',
  'a'.repeat(65),
  'b'.repeat(501),
  'needs_review',
  'duplicates',
  'confidence',
  'date',
  'asc',
];

const cursorOf = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const CURSORS = [
  cursorOf([0.5, '9999999999999999999']),
  cursorOf([0.5, '1']),
  cursorOf(['not a date', '1']),
  cursorOf(['2026-99-99T00:00:00Z', '1']),
  cursorOf([1e308, '1']),
  cursorOf(['a', 'b', 'c']),
  cursorOf(['\u0000', '\u0000', '\u0000']),
  cursorOf(['x'.repeat(100), 'y', 'z']),
  cursorOf({}),
  cursorOf(null),
  'not-base64!',
];

export const nastyString: Arbitrary<string> = arb((rng) => {
  if (rng() < 0.15) return pick(rng, CURSORS);
  const n = 1 + Math.floor(rng() * 3);
  let s = '';
  for (let i = 0; i < n; i++) s += pick(rng, PIECES);
  return s;
});

/** JSON values: mostly nasty strings, sometimes numbers, booleans, null, arrays and objects. */
export const nastyJson: Arbitrary<unknown> = arb(function gen(rng: Rng, depth = 0): unknown {
  const r = rng();
  if (r < 0.55 || depth > 2) return nastyString.generate(rng);
  if (r < 0.7) return pick(rng, [0, -1, 1, 0.5, 1e308, -1e308, 2 ** 53 + 1, 1.5]);
  if (r < 0.75) return pick(rng, [true, false, null]);
  if (r < 0.87) return Array.from({ length: Math.floor(rng() * 3) }, () => gen(rng, depth + 1));
  const out: Record<string, unknown> = {};
  for (let i = Math.floor(rng() * 3); i > 0; i--) out[nastyString.generate(rng)] = gen(rng, depth + 1);
  return out;
} as (rng: Rng) => unknown);

export interface PropertyOptions {
  seed: number;
  numRuns: number;
}

/** Runs `property` over `numRuns` values of `a`; throws naming the seed, the run and the value. */
export async function assertProperty<T>(
  a: Arbitrary<T>,
  property: (value: T) => Promise<void>,
  { seed, numRuns }: PropertyOptions,
): Promise<void> {
  const rng = rngOf(seed);
  for (let run = 0; run < numRuns; run++) {
    const value = a.generate(rng);
    try {
      await property(value);
    } catch (err) {
      const shown = JSON.stringify(value, (_k, v) => (typeof v === 'string' ? v.slice(0, 200) : v));
      throw new Error(`property failed (seed ${seed}, run ${run}): ${shown}\n${(err as Error).message}`);
    }
  }
}
