// Every class of string a caller can send (issue 45), each as a handful of representatives: what breaks
// a validator, a SQL query, an HTML page, a Redis key or a log line is usually one class, and a random
// string of code points seldom lands in it. `stringClass` picks a class and mixes it with a second one.
import fc from 'fast-check';

export const STRING_CLASSES = {
  empty: [''],
  whitespace: [
    ' ',
    '   ',
    '\t',
    '\n',
    '\r\n',
    '\u00a0',
    '\u2028',
    '\u2029',
    '\u3000',
    '\u200b',
    '\ufeff',
    '\u180e',
  ],
  nul: ['\u0000', 'a\u0000', '\u0000\u0000\u0000'],
  controls: ['\u0001', '\u0007', '\u001b[31m', '\u007f', '\u0085', '\u009b', '\b\f\v'],
  surrogates: ['\ud800', '\udbff', '\udc00', '\udfff', '\udc00\ud800', 'a\ud83d', '\ud83db', '\ud800\ud800'],
  rtl: ['\u202e', '\u200f', '\u202ba\u202c', 'שלום', 'مرحبا', '\u202egpj.exe', '\u2066\u2069'],
  combining: [
    'e\u0301',
    'Z\u0351\u0352\u0357\u035b\u0363\u0364\u0365\u0366',
    '\u0301',
    'a'.concat('\u0300'.repeat(200)),
  ],
  emoji: ['😀', '👨‍👩‍👧‍👦', '🇺🇸', '👍🏽', '🏳️‍🌈', '\u{1f600}'.repeat(50), '🗝️'],
  unicode: [
    'İ',
    'ı',
    'ß',
    'ﬁ',
    'Å',
    'Å',
    '１２３',
    '٣٤٥',
    'Ⅻ',
    'ℌ',
    'Ｃｉｔｙ',
    'Мэрия',
    '東京都',
    '\uffff',
    '\ufffe',
    '\u{10ffff}',
  ],
  long: [
    'a'.repeat(256),
    'b'.repeat(1_000),
    'c'.repeat(4_097),
    'd'.repeat(20_000),
    'é'.repeat(10_000),
    '9'.repeat(400),
  ],
  sql: [
    "'",
    "''",
    "' OR '1'='1",
    "'; DROP TABLE runs; --",
    '%',
    '_',
    '\\',
    "\\'",
    "E'\\x00'",
    '$$',
    '$1',
    '::text',
    'NULL',
    '/*',
    'ESCAPE',
  ],
  html: [
    '<script>alert(1)</script>',
    '"><img src=x onerror=alert(1)>',
    '&lt;',
    '&#0;',
    '</textarea>',
    '<!--',
    'javascript:alert(1)',
    '\'"`',
  ],
  jsonish: [
    '{}',
    '[]',
    '{"a":1}',
    '[1,2]',
    'null',
    'true',
    '"',
    '\\u0000',
    '{"__proto__":{"x":1}}',
    '1e309',
    ']',
  ],
  urlish: [
    '%2e%2e%2f',
    '%252e',
    '%u0000',
    '%00',
    '%ff',
    '%c0%af',
    '%ed%a0%80',
    '%e0%80',
    '+',
    '%20',
    '?a=b',
    '#x',
    '//evil.example',
    'http://127.0.0.1:6379/',
  ],
  percentGarbage: ['%', '%%', '%zz', '%a', '%%%', '%0', '100%', '%%41'],
  paths: ['..', '../', '../../etc/passwd', '.', '/', '//', '\\..\\', '~', 'a/b', 'a\\b', ':', '*', '?'],
  keys: [
    '__proto__',
    'constructor',
    'prototype',
    'hasOwnProperty',
    'toString',
    'valueOf',
    'then',
    '{bull}',
    'bull:x:1',
    '*',
    'KEYS *',
  ],
  formats: [
    '%s%s%s%n',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template injection, sent as text
    '${7*7}',
    '{{7*7}}',
    '#{7*7}',
    '%(x)s',
    '{0}',
    '\r\nSet-Cookie: a=b',
    'undefined',
    'NaN',
    'true',
    'false',
  ],
} as const;

export type StringClass = keyof typeof STRING_CLASSES;
const CLASSES = Object.keys(STRING_CLASSES) as StringClass[];

/** One representative of a class. */
export const ofClass = (c: StringClass): fc.Arbitrary<string> => fc.constantFrom(...STRING_CLASSES[c]);

/** A representative of one class, alone or joined to one of another (`<script>` + a NUL, RTL + SQL). */
const oneClass = fc.oneof(...CLASSES.map(ofClass));
export const stringClass: fc.Arbitrary<string> = fc
  .tuple(oneClass, fc.option(oneClass, { freq: 2, nil: '' }))
  .map(([a, b]) => a + b);

/**
 * A header value fetch can send: HTTP takes no control character but a tab, and bytes only
 * (Latin-1), so anything else is spelled as its UTF-8 bytes read as Latin-1, which is what reaches
 * the server, and a control character as a space.
 */
export const headerSafe = (s: string): string =>
  Buffer.from(s, 'utf8')
    .toString('latin1')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters HTTP refuses
    .replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ' ')
    .trim();
