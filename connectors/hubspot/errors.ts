// Size: every HubSpot error shape (SDK, batch, property validation) maps here, in one place by design.
// How a failed HubSpot call becomes one of the connector's errors. The SDK rejects with an ApiException
// (`code` = HTTP status, `body` = HubSpot's JSON error body, `headers` = the response headers) for any
// non-2xx answer, and with a plain Error for network failures. Nothing of the SDK leaves this folder:
// callers see AccountNotFoundError / CrmAuthError / CrmRateLimitError (connectors/types.ts) or the two
// classes below, and no message ever contains the access token.

import { IntegrationError } from '../../src/shared/errors.ts';
import { describeNetworkFailure, endpointOf } from '../../src/shared/network-cause.ts';
import { parseRetryAfter } from '../../src/shared/retry-after.ts';
import { CrmAuthError, CrmRateLimitError } from '../types.ts';

/**
 * HubSpot could not answer this time (5xx, 423 locked, 477 migration, a timeout, a network failure):
 * the same call can succeed later. `retryAfterMs` is set when HubSpot said how long to wait
 * (Retry-After, or the 2 s HubSpot asks for after a 423).
 */
export class HubSpotTransientError extends IntegrationError {
  readonly operation: string;
  constructor(
    message: string,
    options: {
      operation: string;
      status?: number;
      retryAfterMs?: number;
      requestId?: string;
      /** The network failure behind "no answer" (shown by the CLI's --verbose). */
      cause?: unknown;
    },
  ) {
    super(message, {
      permanent: false,
      status: options.status,
      retryAfterMs: options.retryAfterMs,
      requestId: options.requestId,
      cause: options.cause,
    });
    this.operation = options.operation;
  }
}

/** A property HubSpot rejected, from a 400 body or a 207 error. */
export interface RejectedProperty {
  name: string;
  /** HubSpot's code: PROPERTY_DOESNT_EXIST, READ_ONLY_VALUE, INVALID_OPTION, INVALID_DATE, ... */
  code: string;
  message: string;
}

/**
 * HubSpot refused the request itself (a 4xx other than 401/403/429, e.g. an invalid property
 * definition): sending it again unchanged cannot succeed. Carries what HubSpot said in plain values,
 * so callers in this folder can attribute the refusal.
 */
export class HubSpotRequestError extends IntegrationError {
  declare readonly status: number;
  readonly operation: string;
  /** HubSpot's error category (VALIDATION_ERROR, OBJECT_NOT_FOUND, ...), when it sent one. */
  readonly category: string | undefined;
  /** HubSpot's own message (token removed). */
  readonly hubspotMessage: string;
  readonly rejectedProperties: RejectedProperty[];
  /** The error body's `context` (e.g. INVALID_OBJECT_IDS: ["COMPANY=123 is not valid"]). */
  readonly context: Record<string, string[]>;
  constructor(
    message: string,
    options: {
      operation: string;
      status: number;
      category?: string;
      hubspotMessage?: string;
      rejectedProperties?: RejectedProperty[];
      context?: Record<string, string[]>;
      requestId?: string;
    },
  ) {
    super(message, { permanent: true, status: options.status, requestId: options.requestId });
    this.operation = options.operation;
    this.category = options.category;
    this.hubspotMessage = options.hubspotMessage ?? '';
    this.rejectedProperties = options.rejectedProperties ?? [];
    this.context = options.context ?? {};
  }
}

/** What an SDK ApiException carries (every generated SDK module has its own class; all look alike). */
export interface HubSpotApiFailure {
  code: number;
  body: unknown;
  headers: Record<string, string>;
}

export function isApiFailure(err: unknown): err is HubSpotApiFailure {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { code?: unknown }).code === 'number' &&
    'body' in err &&
    'headers' in err
  );
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string member of HubSpot's error body, if present. */
export function bodyString(body: unknown, key: string): string | undefined {
  if (!isRecord(body)) return undefined;
  const value = body[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `context` of an error body or a 207 error, as plain string lists. */
export function errorContext(error: unknown): Record<string, string[]> {
  const context = isRecord(error) ? error.context : undefined;
  if (!isRecord(context)) return {};
  const out: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(context)) {
    if (Array.isArray(value)) out[key] = value.map((v) => String(v));
    else if (value !== undefined && value !== null) out[key] = [String(value)];
  }
  return out;
}

/**
 * The properties an error rejects: from `errors[]` (`code` + `context.propertyName`), or else from the
 * JSON list HubSpot embeds in the message ("Property values were not valid: [{...,"name":"x"}]").
 */
export function rejectedProperties(error: unknown): RejectedProperty[] {
  if (!isRecord(error)) return [];
  const out = new Map<string, RejectedProperty>();
  const details = Array.isArray(error.errors) ? error.errors : [];
  for (const detail of details) {
    if (!isRecord(detail)) continue;
    const name = errorContext(detail).propertyName?.[0];
    const code = typeof detail.code === 'string' ? detail.code : undefined;
    if (name && code) {
      out.set(name, { name, code, message: typeof detail.message === 'string' ? detail.message : code });
    }
  }
  const message = typeof error.message === 'string' ? error.message : '';
  const start = message.indexOf('[');
  if (out.size === 0 && /not valid/i.test(message) && start >= 0) {
    try {
      const list: unknown = JSON.parse(message.slice(start));
      if (Array.isArray(list)) {
        for (const item of list) {
          if (!isRecord(item) || typeof item.name !== 'string') continue;
          const code = typeof item.error === 'string' ? item.error : 'INVALID_PROPERTY';
          out.set(item.name, {
            name: item.name,
            code,
            message: typeof item.message === 'string' ? item.message : code,
          });
        }
      }
    } catch {
      // Not the embedded JSON list: nothing to attribute.
    }
  }
  return [...out.values()];
}

/** "property "x" (PROPERTY_DOESNT_EXIST: Property "x" does not exist)"; several joined by "; ". */
export function describeProperties(properties: RejectedProperty[]): string {
  return properties.map((p) => `property "${p.name}" (${p.code}: ${p.message})`).join('; ');
}

/** HubSpot refused the call with this status (404: no such object, 409: it exists already). */
export const isStatus = (err: unknown, status: number): err is HubSpotRequestError =>
  err instanceof HubSpotRequestError && err.status === status;

/** Company ids from HubSpot's INVALID_OBJECT_IDS context ("COMPANY=123 is not valid"). */
export function invalidCompanyIds(context: Record<string, string[]>): Set<string> {
  const ids = new Set<string>();
  for (const entry of context.INVALID_OBJECT_IDS ?? []) {
    const id = /COMPANY=(\d+)/i.exec(entry)?.[1];
    if (id) ids.add(id);
  }
  return ids;
}

/** Case-insensitive header lookup (the SDK lower-cases them, but nothing promises it). */
export function header(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** Removes the access token (and any bearer credential) from a text that may end up in a log. */
export function redactor(accessToken: string): (text: string) => string {
  return (text) => {
    let out = text.replace(/Bearer\s+[^\s"',]+/gi, 'Bearer [redacted]');
    if (accessToken.length >= 4) out = out.split(accessToken).join('[redacted]');
    return out;
  };
}

const DEFAULT_TEN_SECONDLY_MS = 10_000;

/** Milliseconds from `now` until the next midnight UTC (HubSpot resets the daily limit at midnight). */
export function msUntilNextUtcMidnight(now: number): number {
  const d = new Date(now);
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  return Math.max(1_000, next - now);
}

/**
 * How long to wait after a 429: Retry-After when HubSpot sends one (it does not document one), else by
 * the policy in the body — the rolling window (X-HubSpot-RateLimit-Interval-Milliseconds, 10 s by
 * default), 1 s for the search endpoints' SECONDLY limit, and until the next midnight for DAILY
 * (HubSpot resets it at midnight in the account's time zone, which the connector does not know: UTC).
 */
export function rateLimitDelay(
  failure: HubSpotApiFailure,
  now: number,
): { retryAfterMs: number; policy: string | undefined } {
  // The search limit's body may lack policyName; its message is "You have reached your secondly limit."
  const policy =
    bodyString(failure.body, 'policyName') ??
    (/\bsecondly limit/i.test(bodyString(failure.body, 'message') ?? '') ? 'SECONDLY' : undefined);
  const retryAfter = parseRetryAfter(header(failure.headers, 'retry-after'), now);
  if (retryAfter !== undefined) return { retryAfterMs: retryAfter, policy };
  if (policy === 'DAILY') return { retryAfterMs: msUntilNextUtcMidnight(now), policy };
  if (policy === 'SECONDLY') return { retryAfterMs: 1_000, policy };
  const interval = Number(header(failure.headers, 'x-hubspot-ratelimit-interval-milliseconds'));
  return {
    retryAfterMs: Number.isFinite(interval) && interval > 0 ? interval : DEFAULT_TEN_SECONDLY_MS,
    policy,
  };
}

/** HubSpot's id of the failed request (what its support asks for), from the body or the header. */
export function correlationIdOf(failure: HubSpotApiFailure): string | undefined {
  return bodyString(failure.body, 'correlationId') ?? header(failure.headers, 'x-hubspot-correlation-id');
}

/** "401 EXPIRED_AUTHENTICATION: The OAuth token ... (correlationId …)" from an ApiException. */
export function describeFailure(failure: HubSpotApiFailure, redact: (text: string) => string): string {
  const category = bodyString(failure.body, 'category') ?? bodyString(failure.body, 'errorType');
  const message =
    bodyString(failure.body, 'message') ?? (typeof failure.body === 'string' ? failure.body : '');
  const correlationId = correlationIdOf(failure);
  const text = `${failure.code}${category ? ` ${category}` : ''}${message ? `: ${message.slice(0, 500)}` : ''}${
    correlationId ? ` (correlationId ${correlationId})` : ''
  }`;
  return redact(text);
}

/** HubSpot's API, where a connector without a basePath sends its calls. */
export const HUBSPOT_API_BASE = 'https://api.hubapi.com';

/**
 * The connector error for a failed call: auth, rate limit, transient, or a refused request. With no
 * answer at all, the message names where the call went (`basePath`, no path or token) and why, in words
 * ("connection refused", "host not found in DNS", "timed out", "TLS handshake failed: …").
 */
/**
 * The scopes a 403 MISSING_SCOPES answer names (`errors[].context.requiredScopes`, crm-facts.md; any
 * one of them would do), or undefined for any other 403.
 */
export function missingScopesOf(body: unknown): string[] | undefined {
  if (bodyString(body, 'category') !== 'MISSING_SCOPES') return undefined;
  const errors = (body as { errors?: unknown }).errors;
  const named = Array.isArray(errors)
    ? errors.flatMap((e) => {
        const scopes = (e as { context?: { requiredScopes?: unknown } } | null)?.context?.requiredScopes;
        return Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string') : [];
      })
    : [];
  return named.length ? [...new Set(named)] : ['(a scope HubSpot did not name)'];
}

export function toConnectorError(
  operation: string,
  err: unknown,
  redact: (text: string) => string,
  basePath = HUBSPOT_API_BASE,
  now = Date.now(),
): Error {
  if (!isApiFailure(err)) {
    const network = describeNetworkFailure(basePath, err);
    const reason = err instanceof Error ? err.message : String(err);
    return new HubSpotTransientError(
      redact(
        network
          ? `HubSpot ${operation} got no answer from ${network}`
          : `HubSpot ${operation} failed without an answer from ${endpointOf(basePath)}: ${reason}`,
      ),
      { operation, cause: err },
    );
  }
  const status = err.code;
  const what = describeFailure(err, redact);
  const requestId = correlationIdOf(err);
  const scopes = status === 403 ? missingScopesOf(err.body) : undefined;
  if (scopes) {
    return new CrmAuthError(
      `HubSpot refused ${operation}: the token lacks the scope ${scopes.join(' or ')}; add it to the private app's scopes or install the app again (docs/crm-setup.md lists what each feature needs)`,
      status,
      { requestId, missingPermissions: scopes },
    );
  }
  if (status === 401 || status === 403) {
    return new CrmAuthError(
      `HubSpot refused the credentials for ${operation}: ${what} (check HUBSPOT_ACCESS_TOKEN, or install the app again for a portal connected through OAuth)`,
      status,
      { requestId },
    );
  }
  if (status === 429) {
    const { retryAfterMs, policy } = rateLimitDelay(err, now);
    return new CrmRateLimitError(`HubSpot rate limit on ${operation}: ${what}`, retryAfterMs, policy, {
      status,
      requestId,
    });
  }
  if (status >= 500 || status === 423 || status === 477 || status === 0) {
    const retryAfterMs =
      parseRetryAfter(header(err.headers, 'retry-after'), now) ?? (status === 423 ? 2_000 : undefined);
    return new HubSpotTransientError(`HubSpot ${operation} failed: ${what}`, {
      operation,
      status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      requestId,
    });
  }
  const category = bodyString(err.body, 'category');
  const rejected = rejectedProperties(err.body).map((p) => ({ ...p, message: redact(p.message) }));
  return new HubSpotRequestError(
    rejected.length
      ? `HubSpot refused ${operation}: ${status} ${category ?? 'VALIDATION_ERROR'}: ${describeProperties(rejected)}`
      : `HubSpot refused ${operation}: ${what}`,
    {
      operation,
      status,
      ...(category ? { category } : {}),
      hubspotMessage: redact(bodyString(err.body, 'message') ?? ''),
      rejectedProperties: rejected,
      context: errorContext(err.body),
      requestId,
    },
  );
}
