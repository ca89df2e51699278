// One exchange (a request and the answer an emulator sent) held to the reference documents
// (conformance-spec.ts) and the rules its emulator registered beside them (emulators/<kind>/
// conformance-rules.ts; conformance-rules.ts says what each kind is): the status must be one the
// operation lists or one a sourced rule documents for it — a `default` names no status; an error's body
// must be the error documented for its status; the body must match the schema of its status (else of
// `default`) and be JSON where the document declares JSON; the headers the document marks required and
// those the vendor documents elsewhere (its header rules) must be there, in their format. The
// request: a refused one (≥ 400) is judged by its status alone (its body is expected to be wrong); an
// accepted one must have come in a media type the operation takes and match its schema (JSON or
// form-encoded), and with the body the operation requires. Also says what it could check, for the
// coverage the suite's teardown reports. It names no API: every rule comes from the API's reference.
import { type ErrorLike, EVERY_API, type StatusRule, type Where } from './conformance-rules.ts';
import { type ConformanceApi, newAjv, referenceFor, rulesOf, type Validate } from './conformance-spec.ts';

export interface Exchange {
  method: string;
  /** The request path without its query. */
  path: string;
  status: number;
  contentType: string;
  /** The answer's body as sent (undefined or empty: none). */
  body: string | undefined;
  /** The answer's headers, lower-case names. */
  headers: Record<string, unknown>;
  /** The request body as the emulator parsed it (undefined: none, or not parsed). */
  requestBody: unknown;
  /** Absent: a JSON request, with a body when `requestBody` is given. */
  request?: { contentType?: string; hasBody: boolean; authorization?: string };
}

export interface Line {
  api: ConformanceApi;
  method: string;
  path: string;
  route?: string;
  status: number;
  errors: string[];
}

/**
 * What was checked: `checked`, or `excluded: <why>` (outside every document, checked by its own tests),
 * or `unchecked: <why>` (a gap the coverage report counts). A request is `body` (its body validated),
 * `none` (it had none, and needed none), `refused` (judged by the documented refusal status).
 */
export interface Verdict {
  lines: Line[];
  /** The document's path template, when an operation has this path. */
  route?: string;
  answer: string;
  request: string;
}

const describeErrors = (errors: readonly ErrorLike[]) =>
  errors.slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);

const mediaType = (contentType: string | undefined) =>
  (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

let ruleAjv: ReturnType<typeof newAjv> | undefined;
const ruleValidators = new Map<StatusRule, Validate>();
function ruleValidator(rule: StatusRule & { body: object }): Validate {
  let v = ruleValidators.get(rule);
  if (!v) {
    ruleAjv ??= newAjv();
    v = ruleAjv.compile(rule.body);
    ruleValidators.set(rule, v);
  }
  return v;
}

/** The verdict on one exchange. Exported for the check's own test and for conformance.ts. */
export function checkExchange(api: ConformanceApi, x: Exchange): Verdict {
  const { method, path, status } = x;
  const m = method.toLowerCase();
  const lines: Line[] = [];
  const report = (errors: string[], route?: string) =>
    lines.push({ api, method, path, ...(route ? { route } : {}), status, errors });
  const rules = rulesOf(api);
  const elsewhere = rules.undocumented?.find((u) => u.path.test(path));
  if (elsewhere) {
    const why = `excluded: ${elsewhere.name}`;
    return { lines, answer: why, request: why };
  }
  const request = x.request ?? { hasBody: x.requestBody !== undefined, contentType: 'application/json' };
  const body = x.body === undefined || x.body === '' ? undefined : x.body;

  const found = referenceFor(api)(m, path);
  if (!found) {
    const fallback = rules.unknownResource;
    if (!(status === 404 && fallback && body !== undefined && fallback.answers(body)))
      report(['no operation in the reference documents for this method and path']);
    return {
      lines,
      answer: 'checked',
      request: status >= 400 ? 'refused' : 'unchecked: no operation in the documents',
    };
  }
  const { route } = found;
  const verdict = (request: string): Verdict => ({ lines, route, answer: 'checked', request });
  const excused = (errors: readonly ErrorLike[], part: Where['part']) =>
    errors.filter((e) => !rules.allowlist?.some((a) => a.matches(e, { route, status, part })));

  // The status: listed by the operation, or documented for it by a sourced rule.
  const statusRules = (rules.statuses ?? []).filter(
    (r) => r.statuses.includes(status) && r.route.test(route) && (!r.methods || r.methods.includes(m)),
  );
  if (!found.lists(status) && statusRules.length === 0) {
    const only = found.hasDefault ? " (only as the document's `default`, which names no status)" : '';
    report([`status ${status} is not documented for this operation${only}`], route);
  }
  const documented = found.response(status);

  // The body: the documented error of its status, then the document's schema.
  const bodyRules = statusRules.filter((r): r is StatusRule & { body: object } => r.body !== undefined);
  const expectsJson = documented?.validate != null || bodyRules.length > 0;
  let data: unknown;
  let parsed = false;
  if (body !== undefined && expectsJson) {
    try {
      data = JSON.parse(body);
      parsed = true;
    } catch {
      report([`body is no JSON (${x.contentType || 'no content type'})`], route);
    }
  } else if (body === undefined && expectsJson && m !== 'head') {
    report([`no body; the reference declares one for ${status}`], route);
  } else if (body !== undefined && (status === 204 || status === 304)) {
    report([`a ${status} answer with a body`], route);
  }
  let replacesDefault = false;
  if (parsed && bodyRules.length > 0) {
    const matched = bodyRules.find((r) => ruleValidator(r)(data));
    if (matched) replacesDefault = matched.replacesDefault === true;
    else {
      const first = bodyRules[0] as StatusRule & { body: object };
      report(
        [
          `the ${status} body is not the error documented for ${status} here (${first.why.slice(0, 120)})`,
          ...describeErrors(ruleValidator(first).errors ?? []),
        ],
        route,
      );
    }
  }
  if (parsed && !replacesDefault && documented?.validate && !documented.validate(data)) {
    const errors = excused(documented.validate.errors ?? [], 'response');
    if (errors.length) report(describeErrors(errors), route);
  }

  // The headers: those the document marks required, those the vendors document.
  for (const h of documented?.headers ?? []) {
    const value = x.headers[h.name.toLowerCase()];
    if (value === undefined) report([`required header ${h.name} missing`], route);
    else if (h.pattern && !h.pattern.test(String(value)))
      report([`header ${h.name} "${String(value)}" does not match ${h.pattern}`], route);
  }
  const authorization = request.authorization ?? '';
  const required = new Set((documented?.headers ?? []).map((h) => h.name.toLowerCase()));
  for (const h of [...(rules.headers ?? []), ...EVERY_API]) {
    if (!h.route.test(route) || !h.statuses(status) || (h.when && !h.when({ authorization }))) continue;
    if (required.has(h.name.toLowerCase())) continue;
    const value = x.headers[h.name.toLowerCase()];
    const presence = h.presence ?? 'required';
    if (presence === 'absent') {
      if (value !== undefined)
        report([`header ${h.name} sent where the vendor sends none (${h.why})`], route);
    } else if (value === undefined) {
      if (presence === 'required') report([`documented header ${h.name} missing (${h.why})`], route);
    } else if (h.pattern && !h.pattern.test(String(value))) {
      report([`header ${h.name} "${String(value)}" does not match ${h.pattern} (${h.why})`], route);
    }
  }

  // The request.
  if (status >= 400) return verdict('refused');
  const accepted = (e: string) => `accepted a request the reference refuses: ${e}`;
  if (!request.hasBody) {
    if (found.request.required) report([accepted('no body; the operation requires one')], route);
    return verdict('none');
  }
  const media = mediaType(request.contentType);
  if (found.request.media.length === 0) return verdict('unchecked: a body on an operation that takes none');
  if (!found.request.media.includes(media)) {
    report([accepted(`a ${media || 'untyped'} body; it takes ${found.request.media.join(', ')}`)], route);
    return verdict('body');
  }
  if (x.requestBody === undefined) return verdict('unchecked: the body was not parsed');
  const validate = found.request.validate(media);
  if (validate && !validate(x.requestBody)) {
    const errors = excused(validate.errors ?? [], 'request');
    if (errors.length) report(describeErrors(errors).map(accepted), route);
  }
  return verdict(validate ? 'body' : 'unchecked: no schema for the body');
}

/** The divergences of one exchange (empty: it conforms). */
export function divergences(api: ConformanceApi, exchange: Exchange): Line[] {
  return checkExchange(api, exchange).lines;
}
