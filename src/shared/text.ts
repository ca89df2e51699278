// Text from outside (a query value, a JSON string) that PostgreSQL cannot store or compare: a NUL
// (text refuses it) or a lone UTF-16 surrogate (no UTF-8 encoding). Refused at the door as a 400, so
// it never reaches a query and comes back as a 500.

/** With the u flag a pair is one code point: only an unpaired half is a Cs here. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why this text cannot be taken, or undefined when it can. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(value)) return 'contains a lone UTF-16 surrogate (not valid Unicode)';
  return undefined;
}

/** The first string inside `value` (a parsed query or JSON body) that cannot be taken, with its path. */
export function firstTextProblem(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem === undefined ? undefined : `${path || 'value'} ${problem}`;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const name = path ? `${path}.${key}` : key;
    const keyProblem = textProblem(key);
    if (keyProblem !== undefined) return `a name in ${path || 'the value'} ${keyProblem}`;
    const problem = firstTextProblem(inner, name);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** How deep a JSON body of ours may nest: our own bodies nest 3 levels; a CRM's webhook fewer than 10. */
export const MAX_JSON_DEPTH = 32;

/**
 * Why raw JSON text nests too deep to be parsed, or undefined: one pass over the text, counting
 * brackets outside strings, before any parser or recursive check spends stack on it (a 20-kB body
 * nested 10,000 levels overflowed the stack of the text check, a 500, before authentication).
 */
export function jsonDepthProblem(raw: string, max = MAX_JSON_DEPTH): string | undefined {
  return jsonShapeProblem(raw, { maxDepth: max });
}

/**
 * Why raw JSON text is deeper or holds more values than `maxDepth` / `maxValues`, or undefined: the
 * same one pass, counting each container and each `,` outside strings as a value (no recursion, no
 * allocation), so a body is bounded before JSON.parse builds it and a schema walks it.
 */
export function jsonShapeProblem(
  raw: string,
  limits: { maxDepth: number; maxValues?: number | undefined },
): string | undefined {
  const { maxDepth } = limits;
  const maxValues = limits.maxValues ?? Number.POSITIVE_INFINITY;
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return `the JSON nests deeper than ${maxDepth} levels`;
      if (++values > maxValues) return `the JSON holds more than ${maxValues} values`;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && ++values > maxValues) return `the JSON holds more than ${maxValues} values`;
  }
  return undefined;
}

/** A JSON.parse reviver that throws on text `textProblem` refuses (body parsers turn it into a 400). */
export function refuseBadText(key: string, value: unknown): unknown {
  const problem = typeof value === 'string' ? textProblem(value) : undefined;
  if (problem !== undefined) throw new SyntaxError(`${key || 'the body'}: ${problem}`);
  if (textProblem(key) !== undefined) throw new SyntaxError(`a name ${textProblem(key)}`);
  return value;
}

/**
 * Text as a CRM and the write history can both hold it: a NUL or a lone surrogate (an account named
 * with one, quoted in our match reason) becomes U+FFFD, so what the CRM shows is what the history says
 * we wrote.
 */
export function storableText(value: string): string {
  return value.replaceAll('\u0000', '\uFFFD').replace(/\p{Cs}/gu, '\uFFFD');
}

/**
 * `text` in at most `max` characters for a person to read (a task's subject, a note's title): cut at
 * the last space of its final stretch when there is one, never mid-word ("…EV char"), and ended with
 * an ellipsis so the cut shows.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  const head = space >= max - 1 - 40 && space > 0 ? cut.slice(0, space).trimEnd() : cut;
  return `${head}…`;
}

/**
 * A tag (`<img …>`, `</b>`, `<!-- …`) up to its closing bracket, or to the end when it has none; a `<`
 * before a space or a digit ("1 < 2") starts none, and only the bracket goes.
 */
const TAG = /<[A-Za-z/!?][^<>]*(?:>|$)/g;
/** Control characters (C0, DEL, C1) and the bidi overrides that can make a text read as another. */
const CONTROL = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]+/gu;

/**
 * Text from a header or a person (a Salesforce user, a rejection's reason) as we write it into a CRM
 * field, note or task: plain words only. Our pages escape it, but the CRM's own pages and reports,
 * exports and integrations downstream may not, so a tag is dropped whole, a stray bracket with it, and
 * control characters become one space.
 */
export function plainText(value: string): string {
  return value.replace(TAG, '').replace(/[<>]/g, '').replace(CONTROL, ' ').replace(/ {2,}/g, ' ').trim();
}

/**
 * Why XML text is deeper or holds more elements than the limits, or undefined: one pass from `<` to
 * `<` (indexOf, no recursion, no regex backtracking) before a parser builds anything. Comments, CDATA
 * and processing instructions are skipped whole; a DOCTYPE is the caller's to refuse first.
 */
export function xmlShapeProblem(
  xml: string,
  limits: { maxDepth: number; maxElements: number; maxAttributes?: number | undefined },
): string | undefined {
  const maxAttributes = limits.maxAttributes ?? Number.POSITIVE_INFINITY;
  let depth = 0;
  let elements = 0;
  let attributes = 0;
  const skip = (from: number, end: string) => {
    const at = xml.indexOf(end, from);
    return at < 0 ? xml.length : at + end.length;
  };
  // The next '>' and '=' at or after where the scan is, found forward only: a body of `<a` or of
  // `<a/>` without one '=' is scanned once, never once per element.
  const NONE = Number.POSITIVE_INFINITY;
  /** The first `c` at or after `at`, reusing `known` when it is one (or when there is none left). */
  const nextOf = (c: string, at: number, known: number) => {
    if (known >= at) return known;
    const found = xml.indexOf(c, at);
    return found < 0 ? NONE : found;
  };
  let gt = -1;
  let eq = -1;
  for (let i = xml.indexOf('<'); i >= 0 && i < xml.length; i = xml.indexOf('<', i)) {
    const next = xml.charCodeAt(i + 1);
    if (next === 0x2f /* / */) {
      depth--;
      i += 2;
    } else if (next === 0x3f /* ? */) i = skip(i + 2, '?>');
    else if (xml.startsWith('<!--', i)) i = skip(i + 4, '-->');
    else if (xml.startsWith('<![CDATA[', i)) i = skip(i + 9, ']]>');
    else {
      if (++elements > limits.maxElements) return `more than ${limits.maxElements} XML elements`;
      gt = nextOf('>', i, gt);
      if (gt === NONE) break;
      const end = gt;
      // Each attribute has its '=' (one inside a quoted value counts too: a bound, not a parse).
      for (eq = nextOf('=', i, eq); eq < end; eq = nextOf('=', eq + 1, -1))
        if (++attributes > maxAttributes) return `more than ${maxAttributes} XML attributes`;
      if (xml.charCodeAt(end - 1) !== 0x2f && ++depth > limits.maxDepth)
        return `XML nested deeper than ${limits.maxDepth} levels`;
      i = end + 1;
    }
  }
  return undefined;
}
