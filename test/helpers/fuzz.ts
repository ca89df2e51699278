// fast-check arbitraries for the inputs an attacker sends our HTTP routes. Generic strings rarely hit
// what broke before (a NUL, a lone surrogate, a 19-digit id, a keyset cursor of odd JSON, BullMQ's own
// key names), so those are units the strings are built from, next to fast-check's own code points.
import fc from 'fast-check';
import { stringClass } from './fuzz-strings.ts';
import { edgeDate, hugeNumber } from './fuzz-structures.ts';

/** Keys BullMQ keeps beside the job hashes: as job ids they must answer 404, never another key's data. */
export const BULLMQ_KEYS = [
  'events',
  'completed',
  'failed',
  'stalled-check',
  'stalled',
  'id',
  'meta',
  'wait',
  'waiting-children',
  'active',
  'delayed',
  'prioritized',
  'paused',
  'repeat',
  'marker',
  'limiter',
  'metrics',
  'pc',
  'de',
] as const;

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

/** Ids past every integer type we store: bigint, JavaScript's safe range, HubSpot's 64-bit ids. */
export const hugeId: fc.Arbitrary<string> = fc.oneof(
  fc.bigInt({ min: 2n ** 53n, max: 10n ** 40n }).map(String),
  fc.bigInt({ min: -(10n ** 40n), max: -1n }).map(String),
);

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

const unit: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 4, arbitrary: stringClass },
  { weight: 1, arbitrary: edgeDate },
  { weight: 2, arbitrary: fc.constantFrom(...BULLMQ_KEYS) },
  { weight: 1, arbitrary: loneSurrogate },
  { weight: 1, arbitrary: hugeId },
  // Any code point fast-check picks, and any byte below 0x100 (controls, NUL, Latin-1).
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 4 }) },
);

/** One to three attack units joined: shrinking drops units, then simplifies the one left. */
const attackString = fc.string({ unit, minLength: 1, maxLength: 3 });

export const cursorOf = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

/**
 * Keyset cursors as our pages encode them (base64url of `[sortKey, id]`), with sort keys that are no
 * number or no date PostgreSQL reads, ids past bigint, the wrong arity, and cursors that are no JSON.
 */
export const crafted: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    cursorOf([0.5, '9999999999999999999']),
    cursorOf(['not a date', '1']),
    cursorOf(['2026-99-99T00:00:00Z', '1']),
    cursorOf(['-004714-01-01T00:00:00.000Z', '1']),
    cursorOf(['+275760-09-13T00:00:00.000Z', '1']),
    cursorOf([1e308, '1']),
    cursorOf(['\u0000', '\u0000', '\u0000']),
    cursorOf({}),
    cursorOf(null),
    'not-base64!',
  ),
  fc
    .tuple(
      fc.oneof(
        fc.double(),
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        edgeDate,
        fc.constantFrom('not a date', '2026-13-45T00:00:00Z', '0.5'),
        attackString,
      ),
      fc.oneof(hugeId, fc.integer().map(String), attackString),
    )
    .map(cursorOf),
  fc.array(fc.oneof(fc.double(), attackString), { maxLength: 4 }).map(cursorOf),
  fc.string({ unit: 'binary-ascii', maxLength: 12 }).map((s) => Buffer.from(s).toString('base64url')),
);

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 17, arbitrary: attackString },
  { weight: 3, arbitrary: crafted },
);

/**
 * JSON values: mostly nasty strings, sometimes numbers (huge ones as RawJson: write with jsonText),
 * edge dates, booleans, null, and small arrays and objects.
 */
export const nastyJson: fc.Arbitrary<unknown> = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    // At maxDepth fast-check takes the first arbitrary, so nesting ends in a string.
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    { weight: 11, arbitrary: nastyString },
    {
      weight: 3,
      arbitrary: fc.oneof(fc.constantFrom(0, -1, 1, 0.5, 1e308, -1e308, 2 ** 53 + 1), fc.double()),
    },
    { weight: 1, arbitrary: fc.oneof(hugeNumber, edgeDate) },
    { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
    { weight: 2, arbitrary: fc.array(tie('json'), { maxLength: 3 }) },
    { weight: 3, arbitrary: fc.dictionary(nastyString, tie('json'), { maxKeys: 3 }) },
  ),
})).json;

/** `a` in `percent`% of values, else undefined; shrinks towards undefined. */
export const sometimes = <T>(a: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | undefined> =>
  fc.oneof(
    { withCrossShrink: true },
    { weight: 100 - percent, arbitrary: fc.constant(undefined) },
    { weight: percent, arbitrary: a },
  );
