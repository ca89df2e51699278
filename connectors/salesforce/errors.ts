// How a failed jsforce call becomes one of the connector's errors. jsforce rejects with an HttpApiError
// (`errorCode` = Salesforce's errorCode, or ERROR_HTTP_<status> when the body had none; `data` = the
// error item) for an error answer, with a plain Error "Unable to refresh session due to: …" when its own
// refresh of an expired session failed, and with a system error (ECONNREFUSED, …) when no answer came.
// Nothing of jsforce leaves this folder, and no message carries the access or refresh token.

import { IntegrationError } from '../../src/shared/errors.ts';
import { describeNetworkFailure } from '../../src/shared/network-cause.ts';
import { CrmAuthError, CrmRateLimitError, type WriteFailure } from '../types.ts';

/** Salesforce could not answer this time (5xx, a lock, a network failure): the same call may succeed later. */
export class SalesforceTransientError extends IntegrationError {
  readonly operation: string;
  readonly errorCode: string | undefined;
  constructor(
    message: string,
    options: {
      operation: string;
      errorCode?: string;
      /** The network failure behind "no answer" (shown by the CLI's --verbose). */
      cause?: unknown;
    },
  ) {
    super(message, { permanent: false, status: statusOf(options.errorCode), cause: options.cause });
    this.operation = options.operation;
    this.errorCode = options.errorCode;
  }
}

/** Salesforce refused the request (INVALID_FIELD, MALFORMED_QUERY, …): sending it again cannot succeed. */
export class SalesforceRequestError extends IntegrationError {
  readonly operation: string;
  readonly errorCode: string;
  /** The fields Salesforce named, when it named any. */
  readonly fields: string[];
  constructor(message: string, options: { operation: string; errorCode: string; fields?: string[] }) {
    super(message, { permanent: true, status: statusOf(options.errorCode) });
    this.operation = options.operation;
    this.errorCode = options.errorCode;
    this.fields = options.fields ?? [];
  }
}

/**
 * The HTTP status, where the error says it: jsforce keeps only Salesforce's errorCode, and names the
 * status (ERROR_HTTP_<status>) just when the answer carried no errorCode of its own.
 */
function statusOf(errorCode: string | undefined): number | undefined {
  const match = errorCode === undefined ? null : /^ERROR_HTTP_(\d{3})$/.exec(errorCode);
  return match ? Number(match[1]) : undefined;
}

/** Error codes that mean "try again later" (besides ERROR_HTTP_5xx). */
const TRANSIENT_CODES = new Set([
  'UNKNOWN_EXCEPTION',
  'SERVER_UNAVAILABLE',
  'UNABLE_TO_LOCK_ROW',
  'REQUEST_RUNNING_TOO_LONG',
  'QUERY_TIMEOUT',
  'ERROR_HTTP_420',
  'ERROR_HTTP_503',
  'ERROR_HTTP_502',
  'ERROR_HTTP_504',
  'ERROR_HTTP_500',
]);
const AUTH_CODES = new Set(['INVALID_SESSION_ID', 'INVALID_AUTH_HEADER', 'ERROR_HTTP_401']);
const RATE_LIMIT_CODES = new Set(['REQUEST_LIMIT_EXCEEDED', 'ERROR_HTTP_429']);
/** Salesforce's daily allocation is a rolling 24 h window: wait a minute and try again. */
export const RATE_LIMIT_RETRY_MS = 60_000;

/**
 * Record-level codes that sending the same write again cannot fix. INVALID_FIELD_FOR_INSERT_UPDATE: the
 * integration user lacks Edit on the field (field-level security), or the field is read-only (formula,
 * system); INVALID_TYPE_ON_FIELD_IN_RECORD: a value of the wrong type (null for a Checkbox). Both stay
 * until a person changes the org or the mapping, so a retry only spends API calls.
 */
export const PERMANENT_RECORD_CODES = new Set([
  'INVALID_FIELD',
  'ENTITY_IS_DELETED',
  'NOT_FOUND',
  'MALFORMED_ID',
  'INVALID_CROSS_REFERENCE_KEY',
  'INVALID_FIELD_FOR_INSERT_UPDATE',
  'INVALID_TYPE_ON_FIELD_IN_RECORD',
]);

/**
 * The codes that say the record a write names no longer exists ("account gone"): NOT_FOUND (a row's URL,
 * and what older answers said of an unknown id), ENTITY_IS_DELETED (in the recycle bin) and
 * INVALID_CROSS_REFERENCE_KEY (an id that names no record) — the last only when it can be about nothing
 * but that record: it names the Id field, or it names no field and the record carries no other
 * reference (Salesforce answers an unknown OwnerId or WhatId with the same code and no field).
 */
export function isRecordGone(code: string, fields: readonly string[], otherReferences: boolean): boolean {
  if (code === 'NOT_FOUND' || code === 'ENTITY_IS_DELETED') return true;
  if (code !== 'INVALID_CROSS_REFERENCE_KEY') return false;
  if (fields.some((f) => f.toLowerCase() === 'id')) return true;
  return fields.length === 0 && !otherReferences;
}

/** What a record failure is about, beyond Salesforce's error: may it concern another reference too. */
export interface RecordFailureContext {
  /** The record carries a reference to another record (OwnerId, WhatId, a lookup value) besides its Id. */
  otherReferences?: boolean;
}

/**
 * One record's failure of a collection save, from its `errors` (read without trusting their shape):
 * gone (404, permanent), a field the integration user cannot edit (permanent, naming the fields and
 * what the admin grants), another permanent refusal (400), or a failure that may pass later.
 */
export function recordFailureOf(
  errors: unknown,
  subject: string,
  redact: (text: string) => string,
  context: RecordFailureContext = {},
): WriteFailure {
  const first = Array.isArray(errors) ? errors.find(isRecord) : undefined;
  const code = first && typeof first.statusCode === 'string' ? first.statusCode : 'UNKNOWN';
  const message = first && typeof first.message === 'string' ? redact(first.message) : 'no message';
  const fields = first && Array.isArray(first.fields) ? first.fields.map((f: unknown) => String(f)) : [];
  const named = fields.length ? ` [${fields.join(', ')}]` : '';
  if (isRecordGone(code, fields, context.otherReferences === true)) {
    return {
      status: 404,
      message: `${subject} is gone (deleted, or no such record): ${code}: ${message}${named}`,
      permanent: true,
    };
  }
  if (code === 'INVALID_FIELD_FOR_INSERT_UPDATE') {
    const which = fields.length ? fields.join(', ') : 'a field of this write';
    return {
      status: 400,
      message:
        `${subject}: Salesforce does not let the integration user edit ${which} (${code}). ` +
        `A Salesforce admin grants that user Edit access to ${fields.length > 1 ? 'these fields' : 'the field'} ` +
        '(Setup → Object Manager → the object → Fields & Relationships → the field → Set Field-Level ' +
        "Security, for the user's profile, or a permission set with Edit on it); a formula or system " +
        `field cannot be written at all. Salesforce said: ${message}`,
      permanent: true,
    };
  }
  return {
    status: PERMANENT_RECORD_CODES.has(code) ? 400 : undefined,
    message: `${subject}: ${code}: ${message}${named}`,
    permanent: PERMANENT_RECORD_CODES.has(code),
  };
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `errorCode` of a jsforce HttpApiError, or undefined for anything else. */
export function errorCodeOf(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { errorCode?: unknown }).errorCode;
  return typeof code === 'string' && code !== '' ? code : undefined;
}

/** Removes the given secrets (and any bearer credential) from a text that may end up in a log. */
export function redactor(secrets: () => (string | null | undefined)[]): (text: string) => string {
  return (text) => {
    let out = text.replace(/Bearer\s+[^\s"',]+/gi, 'Bearer [redacted]');
    for (const secret of secrets()) {
      if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
    }
    return out;
  };
}

/** The API usage jsforce last saw in Sforce-Limit-Info, e.g. " (api-usage 15000/15000)". */
export type ApiUsage = { used: number; limit: number } | undefined;

/**
 * "got no answer from https://host: connection refused" when `err` is a network failure of a call to
 * `url` (jsforce's own message carries the whole request URL and Node's code, not the cause in words).
 */
export function noAnswer(url: string, err: unknown): string | undefined {
  const network = describeNetworkFailure(url, err);
  return network === undefined ? undefined : `got no answer from ${network}`;
}

/**
 * The connector error for a failed jsforce call: auth, rate limit, transient, or a refused request.
 * `instanceUrl` is where the call went: a network failure names it (no path, no token) and the cause.
 */
export function toConnectorError(
  operation: string,
  err: unknown,
  redact: (text: string) => string,
  apiUsage?: ApiUsage,
  instanceUrl?: string,
): Error {
  const reason = redact(err instanceof Error ? err.message : String(err)).slice(0, 500);
  const code = errorCodeOf(err);
  if (code === undefined) {
    if (err instanceof Error && /^Unable to refresh session/i.test(err.message)) {
      return new CrmAuthError(`Salesforce refused to refresh the session for ${operation}: ${reason}`, 401);
    }
    if (err instanceof Error && /No refresh token found/i.test(err.message)) {
      return new CrmAuthError(`Salesforce session expired for ${operation} and no refresh token is set`, 401);
    }
    const network = instanceUrl === undefined ? undefined : noAnswer(instanceUrl, err);
    return new SalesforceTransientError(
      network
        ? `Salesforce ${operation} ${network}`
        : `Salesforce ${operation} failed without an answer: ${reason}`,
      { operation, cause: err },
    );
  }
  if (AUTH_CODES.has(code)) {
    return new CrmAuthError(`Salesforce refused the credentials for ${operation}: ${code}: ${reason}`, 401);
  }
  if (RATE_LIMIT_CODES.has(code)) {
    const usage = apiUsage ? ` (api-usage ${apiUsage.used}/${apiUsage.limit})` : '';
    return new CrmRateLimitError(
      `Salesforce API limit on ${operation}: ${code}: ${reason}${usage}`,
      RATE_LIMIT_RETRY_MS,
      code === 'REQUEST_LIMIT_EXCEEDED' ? 'DAILY_API_REQUESTS' : undefined,
      // Salesforce answers REQUEST_LIMIT_EXCEEDED with a 403.
      { status: statusOf(code) ?? 403 },
    );
  }
  if (TRANSIENT_CODES.has(code) || /^ERROR_HTTP_5\d\d$/.test(code)) {
    return new SalesforceTransientError(`Salesforce ${operation} failed: ${code}: ${reason}`, {
      operation,
      errorCode: code,
    });
  }
  const data = (err as { data?: unknown }).data;
  const fields =
    isRecord(data) && Array.isArray(data.fields) ? data.fields.map((f: unknown) => String(f)) : [];
  return new SalesforceRequestError(`Salesforce refused ${operation}: ${code}: ${reason}`, {
    operation,
    errorCode: code,
    fields,
  });
}
