// Which statuses each operation may answer and what each error looks like, beyond what the reference
// documents list. HubSpot's and Salesforce's documents list the success statuses and a `default`; a
// `default` says nothing about *which* errors an operation answers, so the check takes a status the
// operation does not list only from a rule here, each naming the API, the statuses, the document routes
// it applies to and its source (a vendor page or a crm-facts.md line). A rule's `body` is the documented
// error of that status (a JSON Schema): an answer of a status some rules cover must match one of their
// bodies, listed or not — so a 400 sent as 404, or Salesforce's REQUEST_LIMIT_EXCEEDED sent as 429, or
// the provider's unknown buyer sent as 400, is a divergence even where the status itself is allowed.
// `replacesDefault`: the source documents this error's body in place of the document's `default`
// schema (HubSpot's 429 and its OAuth errors); otherwise the body is validated against both. A table,
// longer than a file should be: one entry per status and source, read entry by entry.
import type { ConformanceApi } from './conformance-spec.ts';

export interface StatusRule {
  api: ConformanceApi;
  statuses: readonly number[];
  /** Matched against the document's path template (`/crm/v3/objects/companies/{companyId}`). */
  route: RegExp;
  /** Lower-case methods; all when absent. */
  methods?: readonly string[];
  body?: object;
  replacesDefault?: true;
  why: string;
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const category = (...names: string[]) => ({
  type: 'object',
  required: ['category'],
  properties: { category: { enum: names } },
});

const CRM = /^\/crm\//;
/**
 * The CRM's routes and the account's details (account-info v3): HubSpot's error-handling page is
 * about all of its APIs, so its authentication, scope, limit and server statuses apply to both.
 */
const CRM_AND_ACCOUNT = /^\/(crm|account-info)\//;
/** The categories of HubSpot's refusals (the bodies above): none of them is a server's failure. */
const CLIENT_CATEGORIES = [
  'VALIDATION_ERROR',
  'INVALID_AUTHENTICATION',
  'EXPIRED_AUTHENTICATION',
  'MISSING_SCOPES',
  'OBJECT_NOT_FOUND',
  'OBJECT_ALREADY_EXISTS',
];
const HUBSPOT_ERRORS = 'https://developers.hubspot.com/docs/api-reference/error-handling';
/** Operations that take a body (the 413/415 refusals). */
const WRITES = ['post', 'put', 'patch'];

const hubspot: StatusRule[] = [
  {
    api: 'hubspot',
    statuses: [400],
    route: /^\/oauth\/v1\/access-tokens\/\{token\}$/,
    methods: ['get'],
    body: {
      type: 'object',
      required: ['status', 'message'],
      properties: { status: { const: 'error' }, message: { type: 'string' } },
    },
    why: 'a token that is no OAuth access token (a private-app `pat-…` token): {"status":"error","message":"The access token must have the correct format"} (hubspot-api-nodejs#530, a HubSpot maintainer: "not OAuth access token, but private access token")',
  },
  {
    api: 'hubspot',
    statuses: [400],
    route: CRM,
    body: category('VALIDATION_ERROR'),
    why: `endpoint-specific 400 VALIDATION_ERROR ("Using object APIs", properties and associations guides; crm-facts.md: "unknown or read-only property → 400"); example body on ${HUBSPOT_ERRORS}`,
  },
  {
    api: 'hubspot',
    statuses: [401],
    route: CRM_AND_ACCOUNT,
    body: category('INVALID_AUTHENTICATION', 'EXPIRED_AUTHENTICATION'),
    why: `${HUBSPOT_ERRORS}: "401 Unauthorized: returned when the authentication provided is invalid"`,
  },
  {
    api: 'hubspot',
    statuses: [403],
    route: CRM_AND_ACCOUNT,
    body: {
      type: 'object',
      required: ['status', 'message', 'correlationId', 'errors', 'category'],
      properties: {
        status: { const: 'error' },
        category: { const: 'MISSING_SCOPES' },
        errors: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['message', 'context'],
            properties: {
              context: {
                type: 'object',
                required: ['requiredScopes'],
                properties: { requiredScopes: { type: 'array', minItems: 1, items: { type: 'string' } } },
              },
            },
          },
        },
        links: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    why: `${HUBSPOT_ERRORS} (403 Forbidden: the token lacks a scope) and crm-facts.md, Scopes: "A call without its scope answers 403 {status:"error", message:"This app hasn't been granted all required scopes…", correlationId, errors:[{message, context:{requiredScopes}}], links:{scopes}, category:"MISSING_SCOPES"}"`,
  },
  {
    api: 'hubspot',
    statuses: [404],
    route: /^\/crm\/.*\{[^}]+\}/,
    body: category('OBJECT_NOT_FOUND'),
    why: 'a record, property, group or owner named in the path that does not exist: 404 OBJECT_NOT_FOUND (the CRM object, properties and owners guides; body seen from PATCH /crm/v3/objects/contacts/{id}, emulators/hubspot/errors.ts)',
  },
  {
    api: 'hubspot',
    statuses: [409],
    route: /^\/crm\/v3\/properties\/\{objectType\}(\/groups)?$/,
    methods: ['post'],
    body: category('OBJECT_ALREADY_EXISTS'),
    why: 'Properties guide: creating a property or group whose name exists answers 409 (OBJECT_ALREADY_EXISTS)',
  },
  {
    api: 'hubspot',
    statuses: [413, 415],
    route: CRM,
    methods: WRITES,
    body: category('VALIDATION_ERROR'),
    why: 'a body over the size limit (413) or not JSON (415): CRM operations take application/json only (every CRM document declares only it); HubSpot lists neither status on its error page, so only operations that take a body may answer them',
  },
  {
    api: 'hubspot',
    statuses: [414],
    route: CRM,
    why: `${HUBSPOT_ERRORS}: "414: the request URI is too long"`,
  },
  {
    api: 'hubspot',
    statuses: [423],
    route: CRM,
    why: `${HUBSPOT_ERRORS}: "423 Locked … include a delay of at least 2 seconds"`,
  },
  {
    api: 'hubspot',
    statuses: [429],
    route: CRM_AND_ACCOUNT,
    replacesDefault: true,
    body: {
      type: 'object',
      required: ['status', 'message', 'errorType', 'correlationId', 'policyName'],
      properties: {
        status: { const: 'error' },
        errorType: { const: 'RATE_LIMIT' },
        policyName: { enum: ['TEN_SECONDLY_ROLLING', 'DAILY', 'SECONDLY'] },
      },
    },
    why: 'crm-facts.md, rate limits: "429 body: {status:"error", message:"You have reached your ten_secondly_rolling limit.", errorType:"RATE_LIMIT", correlationId, policyName:"TEN_SECONDLY_ROLLING"|"DAILY"}" (usage guidelines; SECONDLY: the search limit, emulators/hubspot/errors.ts); no `category`, which the Error schema requires',
  },
  {
    api: 'hubspot',
    statuses: [477],
    route: /^\/(crm|oauth|account-info)\//,
    why: `${HUBSPOT_ERRORS}: "477 Migration in Progress" (with Retry-After, conformance-headers.ts)`,
  },
  {
    api: 'hubspot',
    statuses: [500, 502, 503, 504, ...range(521, 526)],
    route: /^\/(crm|oauth|account-info)\//,
    // A category names what went wrong: one of a refused request's is no server failure.
    body: {
      not: {
        anyOf: [
          { type: 'object', required: ['category'], properties: { category: { enum: CLIENT_CATEGORIES } } },
          { type: 'object', required: ['errorType'], properties: { errorType: { const: 'RATE_LIMIT' } } },
        ],
      },
    },
    why: `${HUBSPOT_ERRORS}: 502/504 timeouts, 503 temporarily unavailable, 521–526 (and any server's 500); not with a refused request's category`,
  },
  {
    api: 'hubspot',
    statuses: [400],
    route: /^\/oauth\/v[13]\/token(\/introspect)?$/,
    replacesDefault: true,
    body: {
      type: 'object',
      required: ['status', 'message', 'error', 'error_description'],
      properties: {
        status: { type: 'string', pattern: '^BAD_[A-Z_]+$' },
        message: { type: 'string' },
        correlationId: { type: 'string', format: 'uuid' },
        // RFC 6749 §5.2's codes.
        error: {
          enum: [
            'invalid_request',
            'invalid_client',
            'invalid_grant',
            'unauthorized_client',
            'unsupported_grant_type',
            'invalid_scope',
          ],
        },
        error_description: { type: 'string' },
      },
    },
    why: 'HubSpot changelog "New OAuth v3 API endpoints and standardized error responses" (developers.hubspot.com/changelog/new-oauth-v3-api-endpoints-and-standardized-error-responses): OAuth errors, v1 and v3, carry RFC 6749 `error` and `error_description` beside HubSpot\'s `status` (BAD_CLIENT_ID, BAD_REFRESH_TOKEN…) and `message`; no `category`',
  },
  {
    api: 'hubspot',
    statuses: [415],
    route: /^\/oauth\//,
    body: { type: 'object', required: ['status', 'message'] },
    why: 'the OAuth documents declare application/x-www-form-urlencoded only; any other body is refused (RFC 9110 §15.5.16)',
  },
  {
    api: 'hubspot',
    statuses: [404],
    route: /^\/oauth\/v1\/token$/,
    body: { type: 'object', required: ['status', 'message'], properties: { status: { const: 'error' } } },
    why: 'crm-facts.md, OAuth: "v1 is deprecated Feb 2027"; the emulator can be told v1 is retired (auth.oauthV1Retired) and answers as an unknown route (404) — how a retired endpoint answers is undocumented',
  },
];

const REST = /^\/services\/data\//;
const SF_ERRORS =
  'REST API Developer Guide, "Status Codes and Error Responses" (developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm)';
/** errorCodes the guide ties to one status; any other status with one of them is a swap. */
const SF_CODES_WITH_A_STATUS = [
  'INVALID_SESSION_ID',
  'REQUEST_LIMIT_EXCEEDED',
  'NOT_FOUND',
  'SERVER_UNAVAILABLE',
  'UNKNOWN_EXCEPTION',
];
const sfErrors = (errorCode: object) => ({
  type: 'array',
  minItems: 1,
  items: { type: 'object', required: ['errorCode'], properties: { errorCode } },
});
const sfNone = sfErrors({ not: { enum: SF_CODES_WITH_A_STATUS } });

const salesforce: StatusRule[] = [
  {
    api: 'salesforce',
    statuses: [400],
    route: REST,
    body: sfErrors({ not: { enum: SF_CODES_WITH_A_STATUS.filter((c) => c !== 'NOT_FOUND') } }),
    why: `${SF_ERRORS}: "400 The request couldn't be understood, usually because the JSON or XML body contains an error" (MALFORMED_ID, INVALID_FIELD, …)`,
  },
  {
    api: 'salesforce',
    statuses: [401],
    route: REST,
    body: sfErrors({ const: 'INVALID_SESSION_ID' }),
    why: `${SF_ERRORS}: "401 The session ID or OAuth token used has expired or is invalid"`,
  },
  {
    api: 'salesforce',
    statuses: [403],
    route: REST,
    body: sfErrors({ not: { enum: SF_CODES_WITH_A_STATUS.filter((c) => c !== 'REQUEST_LIMIT_EXCEEDED') } }),
    why: `${SF_ERRORS}: "403 The request has been refused … If the error code is REQUEST_LIMIT_EXCEEDED, you've exceeded API request limits in your org"`,
  },
  {
    api: 'salesforce',
    statuses: [404],
    route: REST,
    body: sfErrors({ enum: ['NOT_FOUND', 'ENTITY_IS_DELETED'] }),
    why: `${SF_ERRORS}: "404 The requested resource couldn't be found"`,
  },
  {
    api: 'salesforce',
    statuses: [405, 409, 412, 414, 415, 428, 431],
    route: REST,
    body: sfNone,
    why: `${SF_ERRORS}: 405 method not allowed, 409 conflict, 412 precondition, 414 URI too long, 415 unsupported format, 428, 431`,
  },
  {
    api: 'salesforce',
    statuses: [500],
    route: REST,
    body: sfErrors({ const: 'UNKNOWN_EXCEPTION' }),
    why: `${SF_ERRORS}: "500 An error has occurred within Lightning Platform"`,
  },
  {
    api: 'salesforce',
    statuses: [502],
    route: REST,
    why: `${SF_ERRORS}: "502 Salesforce Edge failed to communicate with the Salesforce instance"`,
  },
  {
    api: 'salesforce',
    statuses: [503],
    route: REST,
    body: sfErrors({ const: 'SERVER_UNAVAILABLE' }),
    why: `${SF_ERRORS}: "503 The server is unavailable to handle the request"`,
  },
  {
    api: 'salesforce',
    statuses: [400],
    route: /^\/services\/oauth2\/token$/,
    why: 'OAuth 2.0 Refresh Token Flow and JWT Bearer Flow (Salesforce Help): a refused grant answers 400 with {error, error_description} (invalid_grant, invalid_client_id, unsupported_grant_type…)',
  },
  {
    api: 'salesforce',
    statuses: [500, 502, 503],
    route: /^\/services\/oauth2\/token$/,
    why: `the login server's own failures, as the REST guide's 5xx (${SF_ERRORS})`,
  },
  {
    api: 'salesforce',
    statuses: [403],
    route: /^\/services\/oauth2\/userinfo$/,
    why: 'Identity URLs (Salesforce Help), its error codes: "403 (forbidden) — Bad_OAuth_Token" for a token that is no session; the UserInfo endpoint answers for the same identity service',
  },
];

// The provider's document lists 400, 401, 403, 404, 415, 429 and 500 on every operation, so these rules
// only say what each means: its error body is "not shown" (buyer-intelligence-api.md, Errors), so the
// emulator's own ({status, error, code, message, requestId}, emulators/buyer-intel/http-error.ts) is held
// to the meaning the document gives each status: its `status` is the answer's, and its dotted code says
// the same thing (the OpenAPI's one quoted code, `resource.buyer.summary.empty`, is a 404).
const BI_ERRORS = 'buyer-intelligence-api.md, Errors table';
const biError = (status: number, code: string) => ({
  type: 'object',
  required: ['status', 'code', 'message'],
  properties: { status: { const: status }, code: { type: 'string', pattern: code } },
});
const BI_ALL = /^\/api\/external\//;
const buyerIntel: StatusRule[] = [
  [
    400,
    '^request\\.',
    'invalid request body or format; on bridge row listing, a sort column that is not mapped',
  ],
  [401, '^auth\\.', 'missing or invalid authentication'],
  [403, '^access\\.', 'unauthorized to access the resource or perform the action'],
  [404, '^resource\\.', 'resource not found'],
  [415, '^request\\.media_type\\.', 'unsupported media type or request body format'],
  [429, '^rate_limit\\.', 'rate limit exceeded'],
  [500, '^server\\.', 'internal server error'],
].map(([status, code, meaning]) => ({
  api: 'buyer-intel' as const,
  statuses: [Number(status)],
  route: BI_ALL,
  body: biError(Number(status), String(code)),
  why: `${BI_ERRORS}: ${status} "${meaning}"`,
}));

export const STATUS_RULES: readonly StatusRule[] = [...hubspot, ...salesforce, ...buyerIntel];
