// Salesforce Outbound Message bodies for the fuzz (issue 45): envelopes that state the org we serve (so
// the token check passes and the XML reaches the parser), built from valid parts and broken ones —
// nesting and widths by powers of two up to and past the receiver's bounds (10,000 elements, 2,000
// attributes, 100 Notifications), entities, CDATA, namespaces, DOCTYPEs (a billion laughs, an external
// entity), processing instructions, comments, encodings, truncation.
import fc from 'fast-check';
import { salesforceId18 } from '../../connectors/salesforce/ids.ts';
import { nastyString } from './fuzz.ts';
import { stringClass } from './fuzz-strings.ts';
import { powers } from './fuzz-structures.ts';

const escapeXml = (s: string) =>
  s.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c,
  );

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A well-formed 18-character id with the key prefix (`001` an Account, `04l` a notification). */
const sfId = (prefix: string) =>
  fc
    .string({ unit: fc.constantFrom(...ID_CHARS), minLength: 12, maxLength: 12 })
    .map((rest) => salesforceId18(`${prefix}${rest}`) ?? `${prefix}${rest}`);

/** An id where one goes: mostly well-formed, else a wrong checksum, a 15-character one, or anything. */
const idText = (prefix: string) =>
  fc.oneof(
    { weight: 6, arbitrary: sfId(prefix) },
    { weight: 1, arbitrary: sfId(prefix).map((id) => `${id.slice(0, 15)}ZZZ`) },
    { weight: 1, arbitrary: sfId(prefix).map((id) => id.slice(0, 15)) },
    { weight: 2, arbitrary: text() },
  );

const ENTITIES = [
  '&amp;',
  '&lt;x&gt;',
  '&#0;',
  '&#x0;',
  '&#xD800;',
  '&#x110000;',
  '&#99999999999;',
  '&bogus;',
  '&',
  '&#;',
  '&#x;',
  '&lol9;',
  '&#65;&#x42;',
];
const CDATA = [
  '<![CDATA[x]]>',
  '<![CDATA[<a>&]]>',
  '<![CDATA[]]>]]>',
  '<![CDATA[unterminated',
  '<![CDATA[<![CDATA[]]>]]>',
];

/** Element text: escaped nasty strings, raw ones (a bare `<` or `&`), entities, CDATA. */
function text(): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.oneof(nastyString, stringClass).map(escapeXml) },
    { weight: 1, arbitrary: fc.oneof(nastyString, stringClass) },
    { weight: 1, arbitrary: fc.constantFrom(...ENTITIES) },
    { weight: 1, arbitrary: fc.constantFrom(...CDATA) },
  );
}

const LAUGHS = `<!DOCTYPE lolz [<!ENTITY lol "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`).join('')}]>`;
const PROLOGS = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '',
  '\ufeff<?xml version="1.0" encoding="UTF-8"?>',
  '<?xml version="1.1" encoding="UTF-16"?>',
  '<?xml version="1.0" encoding="ISO-8859-1"?>',
  '<?xml version="1.0" encoding="EBCDIC"?>',
  '<?xml version="2.0"?>',
  '<?xml?>',
  '  \n<?xml version="1.0"?>',
  '<?xml version="1.0"?><?xml version="1.0"?>',
  `<?xml version="1.0"?>${LAUGHS}`,
  '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
  '<?xml version="1.0"?><!DOCTYPE x SYSTEM "http://127.0.0.1:6379/">',
  '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY % p SYSTEM "http://example.invalid/x.dtd"> %p;]>',
  '<?xml-stylesheet href="x"?>',
  '<!-- a comment -- with a double dash -->',
];

const SOAP_11: [string, string] = ['soapenv', 'http://schemas.xmlsoap.org/soap/envelope/'];
const ENVELOPE_NS: [string, string][] = [
  ['soapenv', 'http://schemas.xmlsoap.org/soap/envelope/'],
  ['soap', 'http://www.w3.org/2003/05/soap-envelope'],
  ['s', 'http://schemas.xmlsoap.org/soap/envelope/'],
  ['soapenv', 'urn:wrong'],
  ['', 'http://schemas.xmlsoap.org/soap/envelope/'],
];

/** Powers of two up to 2^14, and the receiver's bounds either side. */
const size = powers(14, [99, 100, 101, 1_999, 2_000, 2_001, 9_999, 10_000, 10_001]);

interface Shape {
  orgId: string;
}

/** A Notification with an Account's fields; `extra` goes inside the sObject (nesting, width). */
const notification = (extra: fc.Arbitrary<string>) =>
  fc
    .record({
      id: idText('04l'),
      accountId: idText('001'),
      name: text(),
      type: fc.constantFrom('sf:Account', 'sf:Contact', '', 'x"y'),
      extra,
    })
    .map(
      ({ id, accountId, name, type, extra }) =>
        `<Notification><Id>${id}</Id><sObject xsi:type="${type}" xmlns:sf="urn:sobject.enterprise.soap.sforce.com"><sf:Id>${accountId}</sf:Id><sf:Name>${name}</sf:Name>${extra}</sObject></Notification>`,
    );

/** What goes inside an sObject besides Id and Name: nothing, deep nesting, many fields or attributes. */
const inside: fc.Arbitrary<string> = fc.oneof(
  { weight: 24, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: size.map((n) => `${'<sf:a>'.repeat(n)}x${'</sf:a>'.repeat(n)}`) },
  { weight: 1, arbitrary: size.map((n) => `${'<sf:a>'.repeat(n)}x`) },
  { weight: 1, arbitrary: size.map((n) => '<sf:F>v</sf:F>'.repeat(n)) },
  {
    weight: 1,
    arbitrary: size.map((n) => `<sf:F ${Array.from({ length: n }, (_, i) => `a${i}="1"`).join(' ')}/>`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '<sf:Id>001000000000001AAA</sf:Id>',
      '<sf:F a="1" a="2"/>',
      '<sf:F a=1/>',
      '<:x/>',
      '<sf:F xmlns:sf=""/>',
      '<?pi x?>',
      '<!-- c -->',
      '</sObject>',
      '<sf:F>',
    ),
  },
);

export function outboundXml(shape: Shape): fc.Arbitrary<string> {
  const org = fc.oneof(
    { weight: 12, arbitrary: fc.constant(shape.orgId) },
    { weight: 2, arbitrary: fc.constant(shape.orgId.slice(0, 15)) },
    { weight: 1, arbitrary: fc.constant(` ${shape.orgId}\n`) },
    { weight: 1, arbitrary: idText('00D') },
  );
  const notifications = fc.oneof(
    { weight: 6, arbitrary: fc.array(notification(inside), { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant([]) },
    // Many Notifications: the same one repeated `n` times (the batch bound is 100).
    {
      weight: 1,
      arbitrary: fc
        .tuple(notification(fc.constant('')), fc.constantFrom(2, 99, 100, 101, 500, 2_000))
        .map(([n, k]) => Array.from({ length: k }, () => n)),
    },
  );
  const envelope = fc
    .record({
      prolog: fc.oneof(
        { weight: 8, arbitrary: fc.constant(PROLOGS[0] ?? '') },
        { weight: 2, arbitrary: fc.constantFrom(...PROLOGS) },
      ),
      ns: fc.oneof(
        { weight: 8, arbitrary: fc.constant(SOAP_11) },
        { weight: 1, arbitrary: fc.constantFrom(...ENVELOPE_NS) },
      ),
      outboundNs: fc.constantFrom(
        'http://soap.sforce.com/2005/09/outbound',
        'http://soap.sforce.com/2005/09/outbound',
        'urn:other',
        '',
      ),
      org,
      actionId: fc.oneof(idText('04k'), text()),
      notifications,
      tail: fc.oneof(
        { weight: 8, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: fc.oneof(text(), fc.constantFrom('<x/>', '<soapenv:Envelope>', '\u0000')) },
      ),
    })
    .map(({ prolog, ns: [prefix, uri], outboundNs, org, actionId, notifications, tail }) => {
      const p = prefix ? `${prefix}:` : '';
      const xmlns = prefix ? `xmlns:${prefix}` : 'xmlns';
      return [
        prolog,
        `<${p}Envelope ${xmlns}="${uri}" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`,
        `<${p}Body>`,
        `<notifications xmlns="${outboundNs}">`,
        `<OrganizationId>${org}</OrganizationId>`,
        `<ActionId>${actionId}</ActionId>`,
        '<SessionId xsi:nil="true"/>',
        ...notifications,
        '</notifications>',
        `</${p}Body>`,
        `</${p}Envelope>${tail}`,
      ].join('\n');
    });
  // Broken on purpose: cut anywhere, wrapped in deep nesting, or a stray piece spliced in.
  return fc.oneof(
    { weight: 12, arbitrary: envelope },
    {
      weight: 1,
      arbitrary: fc
        .tuple(envelope, fc.double({ min: 0, max: 1, noNaN: true }))
        .map(([x, at]) => x.slice(0, Math.floor(x.length * at))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(envelope, size)
        .map(([x, n]) => `${'<w>'.repeat(n)}${x.replace(/^<\?xml[^>]*>/, '')}${'</w>'.repeat(n)}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          envelope,
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.oneof(
            text(),
            fc.constantFrom(...PROLOGS.slice(10)),
            fc.constantFrom('<', '>', '</', '"', '\u0000', ']]>'),
          ),
        )
        .map(([x, at, piece]) => {
          const i = Math.floor(x.length * at);
          return `${x.slice(0, i)}${piece}${x.slice(i)}`;
        }),
    },
    { weight: 1, arbitrary: fc.oneof(nastyString, stringClass) },
  );
}
