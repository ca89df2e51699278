// One error class per failure kind, each carrying what an operator needs to act on it: the operation,
// the HTTP status, the provider's request id and its response body. Messages never include the token
// or any request header.

import { type FailureKind, IntegrationError } from '../shared/errors.ts';

export interface BuyerIntelErrorDetails {
  operation: string;
  status?: number | undefined;
  requestId?: string | undefined;
  body?: unknown;
  cause?: unknown;
}

export class BuyerIntelError extends IntegrationError {
  /** A kind of failure that may pass when the same request is sent again; sets `permanent`. */
  protected static readonly transient: boolean = false;
  /** How a kind of failure that got no answer failed; sets `kind`. */
  protected static readonly noAnswer: FailureKind | undefined = undefined;
  readonly operation: string;
  readonly body: unknown;

  constructor(
    message: string,
    details: BuyerIntelErrorDetails,
    wait: { retryAfterMs?: number | undefined; limit?: 'shared' | 'tenant' } = {},
  ) {
    super(message, {
      permanent: !new.target.transient,
      kind: new.target.noAnswer,
      status: details.status,
      requestId: details.requestId,
      cause: details.cause,
      ...wait,
    });
    this.operation = details.operation;
    this.body = details.body;
  }
}

/** 400: the request was invalid (unknown attribute key, bad page bounds, unmapped sort column...). */
export class BadRequestError extends BuyerIntelError {}
/** 401: the token is missing, wrong or expired. Permanent until the credential changes. */
export class AuthenticationError extends BuyerIntelError {}
/** 403: the token is valid but may not read this resource (e.g. a bridge not shared with it). */
export class PermissionDeniedError extends BuyerIntelError {}
/** 404: unknown buyer, bridge or row id. */
export class NotFoundError extends BuyerIntelError {}
/** 415: the body was not JSON or lacked `Content-Type: application/json`. */
export class UnsupportedMediaTypeError extends BuyerIntelError {}

/** 429: over the provider's rate limit. `retryAfterMs` is the provider's `Retry-After`, when it sent one. */
export class RateLimitError extends BuyerIntelError {
  protected static override readonly transient = true;
  constructor(message: string, details: BuyerIntelErrorDetails & { retryAfterMs?: number | undefined }) {
    // The provider's limit is one every job spends, so waiting it out concerns the whole queue.
    const wait = { retryAfterMs: details.retryAfterMs, limit: 'shared' } as const;
    super(message, { ...details, status: details.status ?? 429 }, wait);
  }
}

/** 500 and any other 5xx. */
export class ServerError extends BuyerIntelError {
  protected static override readonly transient = true;
}

/** Any other status the contract does not list. */
export class UnexpectedStatusError extends BuyerIntelError {}

/** The request never got an HTTP answer: DNS, refused or reset connection. */
export class ConnectionError extends BuyerIntelError {
  protected static override readonly transient = true;
  protected static override readonly noAnswer = 'unreachable';
}

/** No answer within the per-request timeout. */
export class TimeoutError extends BuyerIntelError {
  protected static override readonly transient = true;
  protected static override readonly noAnswer = 'timeout';
}

/**
 * A 2xx answer that does not match the contract. `path` names the first bad field, e.g. `buyers[3].id`.
 * Transient: a garbled or truncated answer is the provider's hiccup, which the next job attempt rarely
 * meets again (the transport still does not repeat it within one call).
 */
export class ResponseValidationError extends BuyerIntelError {
  protected static override readonly transient = true;
  readonly path: string;
  constructor(message: string, details: BuyerIntelErrorDetails & { path: string }) {
    super(message, details);
    this.path = details.path;
  }
}

/** The caller passed something we refuse to send (an unknown state, a page size out of bounds...). */
export class InvalidArgumentError extends BuyerIntelError {}

const BY_STATUS: Record<number, typeof BuyerIntelError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  415: UnsupportedMediaTypeError,
};

/** The provider's error body shape is not shown; take a message from the usual members. */
export function messageFromBody(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim().slice(0, 300) || undefined;
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    for (const key of ['message', 'detail', 'error_description', 'error', 'title']) {
      const v = b[key];
      if (typeof v === 'string' && v.trim()) return v.trim().slice(0, 300);
    }
  }
  return undefined;
}

export function errorForStatus(
  status: number,
  details: BuyerIntelErrorDetails & { retryAfterMs?: number | undefined; statusText?: string },
): BuyerIntelError {
  const reason = messageFromBody(details.body);
  const rid = details.requestId ? ` (request id ${details.requestId})` : '';
  // A refused token is the one thing the person can fix from the message alone: name the setting.
  const fix = status === 401 ? ': BUYER_INTEL_TOKEN was refused (wrong, revoked or expired token)' : '';
  const message = `${details.operation}: HTTP ${status}${details.statusText ? ` ${details.statusText}` : ''}${reason ? ` — ${reason}` : ''}${rid}${fix}`;
  const full = { ...details, status };
  if (status === 429) return new RateLimitError(message, full);
  if (status >= 500) return new ServerError(message, full);
  const Cls = BY_STATUS[status] ?? UnexpectedStatusError;
  return new Cls(message, full);
}
