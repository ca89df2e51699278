// HubSpot's error bodies. Every CRM error carries `status: "error"`, `message`, `correlationId` (also sent
// as the X-HubSpot-Correlation-Id header) and usually `category`, sometimes `context`, `errors[]`, `links`.
// The 429 body is different: `errorType` and `policyName` instead of `category` (usage-guidelines page).
// OAuth token errors are different again: `status` is the reason (BAD_CLIENT_ID, BAD_REFRESH_TOKEN, ...).
import type { Response } from 'express';

export type ErrorBody = Record<string, unknown> & { message: string };

export class HubSpotError extends Error {
  readonly httpStatus: number;
  /** Body without `correlationId`, which is added when the error is sent. */
  readonly body: ErrorBody;
  readonly headers: Record<string, string>;
  constructor(httpStatus: number, body: ErrorBody, headers: Record<string, string> = {}) {
    super(body.message);
    this.httpStatus = httpStatus;
    this.body = body;
    this.headers = headers;
  }
}

export const CORRELATION_HEADER = 'X-HubSpot-Correlation-Id';
export const JSON_TYPE = 'application/json;charset=utf-8';

/** Sends a JSON body the way HubSpot does (`application/json;charset=utf-8`). */
export function sendJson(res: Response, status: number, body: unknown): void {
  sendRaw(res, status, JSON.stringify(body));
}

/** A Buffer keeps Express from rewriting the Content-Type to `application/json; charset=utf-8`. */
export function sendRaw(res: Response, status: number, text: string): void {
  res.status(status).setHeader('Content-Type', JSON_TYPE);
  res.send(Buffer.from(text, 'utf8'));
}

export function sendHubSpotError(res: Response, err: HubSpotError): void {
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  const correlationId = String(res.getHeader(CORRELATION_HEADER) ?? '');
  const { status = 'error', message, ...rest } = err.body;
  // HubSpot's key order: status, message, correlationId, then the rest.
  sendJson(res, err.httpStatus, { status, message, correlationId, ...rest });
}

const error = (httpStatus: number, message: string, rest: Record<string, unknown> = {}) =>
  new HubSpotError(httpStatus, { status: 'error', message, ...rest });

// --- Authentication --------------------------------------------------------------------------------

/** Missing, malformed or unknown bearer token (text seen in hubspot-api-nodejs#432). */
export const invalidAuthentication = () =>
  error(
    401,
    'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview',
    { category: 'INVALID_AUTHENTICATION' },
  );

/** An OAuth access token past its lifetime (body seen in StackOneHQ/mcp-connectors#153). */
export function expiredAuthentication(expiredAtMs: number, nowMs: number): HubSpotError {
  const ago = Math.max(0, nowMs - expiredAtMs);
  const units: [number, string][] = [
    [86_400_000, 'day(s)'],
    [3_600_000, 'hour(s)'],
    [60_000, 'minute(s)'],
    [1_000, 'second(s)'],
  ];
  const [size, unit] = units.find(([ms]) => ago >= ms) ?? [1_000, 'second(s)'];
  return error(401, `The OAuth token used to make this call expired ${Math.floor(ago / size)} ${unit} ago.`, {
    category: 'EXPIRED_AUTHENTICATION',
    context: { 'expire time': [new Date(expiredAtMs).toISOString().replace(/\.\d{3}Z$/, 'Z')] },
  });
}

/**
 * A token without a scope the call needs (crm-facts.md: the body seen in HubSpot/hubspot-api-nodejs
 * #268). `requiredScopes` lists one need's alternatives, any one of which would do; the newer
 * `requiredGranularScopes` member is unconfirmed and left out.
 */
export const missingScopes = (requiredScopes: readonly string[]) =>
  error(
    403,
    "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.",
    {
      errors: [
        {
          message: 'One or more of the following scopes are required.',
          context: { requiredScopes: [...requiredScopes] },
        },
      ],
      links: { scopes: 'https://developers.hubspot.com/scopes' },
      category: 'MISSING_SCOPES',
    },
  );

// --- Rate limits -----------------------------------------------------------------------------------

export type RateLimitPolicy = 'TEN_SECONDLY_ROLLING' | 'DAILY' | 'SECONDLY';

const POLICY_MESSAGE: Record<RateLimitPolicy, string> = {
  TEN_SECONDLY_ROLLING: 'You have reached your ten_secondly_rolling limit.',
  DAILY: 'You have reached your daily limit.',
  // The search API's own per-second limit; HubSpot's wording for it is not documented.
  SECONDLY: 'You have reached your secondly limit.',
};

/** The documented 429 body (usage guidelines); no Retry-After header is documented. */
export const rateLimited = (policy: RateLimitPolicy, requestId: string) =>
  new HubSpotError(429, {
    status: 'error',
    message: POLICY_MESSAGE[policy],
    errorType: 'RATE_LIMIT',
    policyName: policy,
    requestId,
  });

// --- Validation ------------------------------------------------------------------------------------

export const validationError = (message: string, rest: Record<string, unknown> = {}) =>
  error(400, message, { category: 'VALIDATION_ERROR', ...rest });

export interface InvalidProperty {
  name: string;
  /** HubSpot's code: PROPERTY_DOESNT_EXIST, READ_ONLY_VALUE, INVALID_OPTION, ... */
  error: string;
  message: string;
}

/**
 * 400 for property values HubSpot rejects. The `message` embeds the validation results as JSON and
 * `errors[]` repeats them (the "Using object APIs" guide's example, 2026).
 */
export function invalidPropertyValues(portalId: number, invalid: InvalidProperty[]): HubSpotError {
  return error(400, propertyValuesMessage(portalId, invalid), {
    errors: invalid.map((p) => ({ message: p.message, code: p.error, context: { propertyName: [p.name] } })),
    category: 'VALIDATION_ERROR',
  });
}

export function propertyValuesMessage(portalId: number, invalid: InvalidProperty[]): string {
  const results = invalid.map((p) => ({
    isValid: false,
    message: p.message,
    error: p.error,
    name: p.name,
    localizedErrorMessage: p.message,
    portalId,
  }));
  return `Property values were not valid: ${JSON.stringify(results)}`;
}

/** Unparseable JSON; `detail` is the parser's message ("... at position N" gives the column). */
export function malformedJson(detail: string): HubSpotError {
  const position = /position (\d+)/.exec(detail)?.[1];
  const where = position === undefined ? '' : ` on line 1, column ${Number(position) + 1}`;
  return validationError(`Invalid input JSON${where}: ${detail}`);
}

// --- Not found, conflicts, associations ------------------------------------------------------------

/** A CRM record that does not exist (body seen from PATCH /crm/v3/objects/contacts/{id}). */
export const objectNotFound = (id: string) =>
  error(404, 'Object not found.  objectId are usually numeric.', {
    context: { id: [id] },
    category: 'OBJECT_NOT_FOUND',
  });

export const notFound = (message: string) => error(404, message, { category: 'OBJECT_NOT_FOUND' });

/** GET /oauth/v1/access-tokens/{token} for what is no OAuth access token (hubspot-api-nodejs#530). */
export const notAnAccessToken = () => error(400, 'The access token must have the correct format');

/** An unknown route on api.hubapi.com. */
export const resourceNotFound = () => error(404, 'resource not found');

export const alreadyExists = (message: string) => error(409, message, { category: 'OBJECT_ALREADY_EXISTS' });

/** Associations to records that do not exist, or with unknown type ids (bodies seen in the wild). */
export const invalidAssociations = (context: Record<string, string[]>) =>
  validationError('One or more associations are invalid', { context });

export const unknownObjectType = (raw: string) => validationError(`Unable to infer object type from: ${raw}`);

// --- Injected faults -------------------------------------------------------------------------------

export function faultError(httpStatus: number, retryAfterSeconds?: number): HubSpotError {
  // HubSpot documents Retry-After on 477 (crm-facts.md): one is always sent there, 1 s unless scripted.
  const retryAfter = httpStatus === 477 ? (retryAfterSeconds ?? 1) : retryAfterSeconds;
  const headers: Record<string, string> =
    retryAfter !== undefined && httpStatus !== 429 ? { 'Retry-After': String(retryAfter) } : {};
  const message =
    httpStatus === 423
      ? 'The resource is locked; wait at least 2 seconds before retrying'
      : httpStatus === 477
        ? 'Migration in progress'
        : httpStatus >= 500
          ? 'internal error'
          : 'injected fault';
  const category = httpStatus >= 500 ? 'INTERNAL_ERROR' : httpStatus === 423 ? 'LOCKED' : 'VALIDATION_ERROR';
  return new HubSpotError(httpStatus, { status: 'error', message, category }, headers);
}
