// The sourced rules the conformance check (conformance-check.ts) holds an API's answers to beyond its
// reference documents, as one emulator declares them beside its documents (emulators/<kind>/
// conformance-rules.ts, carried by its reference.ts's ConformanceReference): the check reads the rules
// of the API it checks from there, so it names no API and a new emulator brings its own.
//
// - `statuses`: which statuses an operation may answer and what each error looks like, beyond what the
//   documents list. A document's `default` says nothing about *which* errors an operation answers, so
//   the check takes a status the operation does not list only from a rule, each naming the statuses,
//   the document routes it applies to and its source (a vendor page or a crm-facts.md line). A rule's
//   `body` is the documented error of that status (a JSON Schema): an answer of a status some rules
//   cover must match one of their bodies, listed or not. `replacesDefault`: the source documents this
//   error's body in place of the document's `default` schema; otherwise the body is validated against
//   both.
// - `headers`: headers the vendor documents on its answers that the documents do not mark required (or
//   do not mention), checked on the answers that carry them. `presence: 'absent'` is a header the source
//   says is absent there. EVERY_API's rules apply to every API.
// - `allowlist`: the only divergences from the documents the check excuses, each where the vendor's own
//   guides or real answers differ from its published document, matching only where that reason applies
//   (a status, a route, a member). Narrow by design.
// - `undocumented`: routes outside every document that are not REST answers of theirs (checked by their
//   own tests), each with its reason; `unknownResource`: what a documented answer to a resource that
//   does not exist looks like (absent: such an answer is reported).

export interface ErrorLike {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  data?: unknown;
  message?: string;
}

export interface Where {
  route: string;
  status: number;
  part: 'response' | 'request';
}

export interface StatusRule {
  statuses: readonly number[];
  /** Matched against the document's path template (`/crm/v3/objects/companies/{companyId}`). */
  route: RegExp;
  /** Lower-case methods; all when absent. */
  methods?: readonly string[];
  body?: object;
  replacesDefault?: true;
  why: string;
}

export interface HeaderRule {
  name: string;
  /** Matched against the document's path template. */
  route: RegExp;
  statuses: (status: number) => boolean;
  /** Only for requests of this kind (e.g. a private app's token); all when absent. */
  when?: (request: { authorization: string }) => boolean;
  presence?: 'required' | 'absent' | 'optional';
  pattern?: RegExp;
  why: string;
}

export interface Allowance {
  why: string;
  matches: (e: ErrorLike, where: Where) => boolean;
}

export interface UndocumentedRoute {
  path: RegExp;
  name: string;
  why: string;
}

export interface ConformanceRules {
  statuses?: readonly StatusRule[];
  headers?: readonly HeaderRule[];
  allowlist?: readonly Allowance[];
  undocumented?: readonly UndocumentedRoute[];
  unknownResource?: { why: string; answers: (body: string) => boolean };
}

/** The statuses from `from` to `to`, both included. */
export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Rules of HTTP itself, checked on every API's answers. */
export const EVERY_API: readonly HeaderRule[] = [
  {
    name: 'Retry-After',
    route: /./,
    statuses: () => true,
    presence: 'optional',
    // RFC 9110 §10.2.3: delay-seconds or an HTTP-date.
    pattern: /^(\d+|[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT)$/,
    why: 'RFC 9110 §10.2.3: Retry-After is delay-seconds or an HTTP-date, wherever it is sent',
  },
];
