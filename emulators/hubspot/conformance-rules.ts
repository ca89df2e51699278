// The sourced rules HubSpot's answers are held to beyond its reference documents (conformance mode;
// emulators/shared/conformance-rules.ts says what each kind of rule is): the statuses and error bodies
// HubSpot documents per operation, the headers its usage guidelines document, and the divergences its
// own guides or real answers make from its published specs. HUBSPOT_REFERENCE (reference.ts) carries them.
import {
  type Allowance,
  type ConformanceRules,
  type HeaderRule,
  range,
  type StatusRule,
} from '../shared/conformance-rules.ts';

const DIGITS = /^\d+$/;
const USAGE =
  'HubSpot usage guidelines (crm-facts.md, rate limits: "Headers X-HubSpot-RateLimit-Max, -Remaining, -Interval-Milliseconds, -Daily, -Daily-Remaining")';
// The search endpoints have their own limit and answer without these headers (emulators/hubspot/
// operation.ts, the usage guidelines' search section); the OAuth endpoints are not CRM calls.
const CRM_NOT_SEARCH = /^\/crm\/(?!.*\/search$)/;
// Which answers count against the limits: 401 is not attributed to an app, and the emulator refuses a
// body that is not JSON (415), too large (413) or unparseable (400) before the call reaches the limits;
// HubSpot documents neither way for those, so they are left unchecked rather than guessed.
const COUNTED = (s: number) => ![400, 401, 413, 415].includes(s);
const privateApp = (r: { authorization: string }) => /^Bearer\s+pat-/i.test(r.authorization);

const headers: HeaderRule[] = [
  ...[
    'X-HubSpot-RateLimit-Max',
    'X-HubSpot-RateLimit-Remaining',
    'X-HubSpot-RateLimit-Interval-Milliseconds',
  ].map(
    (name): HeaderRule => ({
      name,
      route: CRM_NOT_SEARCH,
      statuses: COUNTED,
      pattern: DIGITS,
      why: `${USAGE} on every CRM answer but search's`,
    }),
  ),
  ...['X-HubSpot-RateLimit-Daily', 'X-HubSpot-RateLimit-Daily-Remaining'].flatMap((name): HeaderRule[] => [
    {
      name,
      route: CRM_NOT_SEARCH,
      statuses: COUNTED,
      when: privateApp,
      pattern: DIGITS,
      why: `${USAGE}: the daily limit is a private app's (its tokens are pat-…)`,
    },
    {
      name,
      route: CRM_NOT_SEARCH,
      statuses: COUNTED,
      when: (r) => !privateApp(r),
      presence: 'absent',
      why: 'HubSpot changelog "Rate limit headers will now appear for OAuth authenticated calls": "OAuth authenticated calls will not include X-HubSpot-RateLimit-Daily or X-HubSpot-RateLimit-Daily-Remaining"',
    },
  ]),
  {
    name: 'Retry-After',
    route: /./,
    statuses: (s) => s === 477,
    why: 'developers.hubspot.com/docs/api-reference/error-handling: "477 Migration in Progress … HubSpot will return a Retry-After response header"',
  },
];

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
    statuses: [400],
    route: CRM,
    body: category('VALIDATION_ERROR'),
    why: `endpoint-specific 400 VALIDATION_ERROR ("Using object APIs", properties and associations guides; crm-facts.md: "unknown or read-only property → 400"); example body on ${HUBSPOT_ERRORS}`,
  },
  {
    statuses: [401],
    route: CRM_AND_ACCOUNT,
    body: category('INVALID_AUTHENTICATION', 'EXPIRED_AUTHENTICATION'),
    why: `${HUBSPOT_ERRORS}: "401 Unauthorized: returned when the authentication provided is invalid"`,
  },
  {
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
    statuses: [404],
    route: /^\/crm\/.*\{[^}]+\}/,
    body: category('OBJECT_NOT_FOUND'),
    why: 'a record, property, group or owner named in the path that does not exist: 404 OBJECT_NOT_FOUND (the CRM object, properties and owners guides; body seen from PATCH /crm/v3/objects/contacts/{id}, emulators/hubspot/errors.ts)',
  },
  {
    statuses: [409],
    route: /^\/crm\/v3\/properties\/\{objectType\}(\/groups)?$/,
    methods: ['post'],
    body: category('OBJECT_ALREADY_EXISTS'),
    why: 'Properties guide: creating a property or group whose name exists answers 409 (OBJECT_ALREADY_EXISTS)',
  },
  {
    statuses: [413, 415],
    route: CRM,
    methods: WRITES,
    body: category('VALIDATION_ERROR'),
    why: 'a body over the size limit (413) or not JSON (415): CRM operations take application/json only (every CRM document declares only it); HubSpot lists neither status on its error page, so only operations that take a body may answer them',
  },
  {
    statuses: [414],
    route: CRM,
    why: `${HUBSPOT_ERRORS}: "414: the request URI is too long"`,
  },
  {
    statuses: [423],
    route: CRM,
    why: `${HUBSPOT_ERRORS}: "423 Locked … include a delay of at least 2 seconds"`,
  },
  {
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
    statuses: [477],
    route: /^\/(crm|oauth|account-info)\//,
    why: `${HUBSPOT_ERRORS}: "477 Migration in Progress" (with Retry-After, the header rules above)`,
  },
  {
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
    statuses: [415],
    route: /^\/oauth\//,
    body: { type: 'object', required: ['status', 'message'] },
    why: 'the OAuth documents declare application/x-www-form-urlencoded only; any other body is refused (RFC 9110 §15.5.16)',
  },
  {
    statuses: [404],
    route: /^\/oauth\/v1\/token$/,
    body: { type: 'object', required: ['status', 'message'], properties: { status: { const: 'error' } } },
    why: 'crm-facts.md, OAuth: "v1 is deprecated Feb 2027"; the emulator can be told v1 is retired (auth.oauthV1Retired) and answers as an unknown route (404) — how a retired endpoint answers is undocumented',
  },
];

/** Divergences where the emulator follows HubSpot's real answers, not its spec. */
const allowlist: Allowance[] = [
  {
    why: 'StandardError requires `errors` and `links`, but HubSpot\'s documented multi-status answer ("Using object APIs" guide) sends neither',
    matches: (e, w) =>
      w.status === 207 &&
      e.keyword === 'required' &&
      /^\/errors\/\d+$/.test(e.instancePath) &&
      ['errors', 'links'].includes(String(e.params.missingProperty)),
  },
  {
    why: 'search returns requested properties without a value as null (the SDK types them string | null); the spec says string',
    matches: (e, w) =>
      w.part === 'response' &&
      w.route.endsWith('/search') &&
      e.keyword === 'type' &&
      /^\/results\/\d+\/properties\/[^/]+$/.test(e.instancePath) &&
      e.data === null,
  },
  {
    why: 'unlabelled association types come with label: null (HubSpot answers); the spec says string',
    matches: (e, w) =>
      w.route.startsWith('/crm/v4/') &&
      e.keyword === 'type' &&
      /\/associationTypes\/\d+\/label$/.test(e.instancePath) &&
      e.data === null,
  },
  {
    why: 'the Companies and Notes guides create records without `associations` (HubSpot accepts it absent); SimplePublicObjectInputForCreate marks it required',
    matches: (e, w) =>
      w.part === 'request' &&
      /^\/crm\/v3\/objects\/[a-z]+(\/batch\/create)?$/.test(w.route) &&
      e.keyword === 'required' &&
      /^(\/inputs\/\d+)?$/.test(e.instancePath) &&
      e.params.missingProperty === 'associations',
  },
  {
    why: 'the CRM search guide makes every member of a search request optional (no filter: all records; limit 10 by default); PublicObjectSearchRequest marks after, filterGroups, limit, properties and sorts required',
    matches: (e, w) =>
      w.part === 'request' &&
      w.route.endsWith('/search') &&
      e.keyword === 'required' &&
      e.instancePath === '' &&
      ['after', 'filterGroups', 'limit', 'properties', 'sorts'].includes(String(e.params.missingProperty)),
  },
  {
    why: 'the CRM search guide sorts with objects {propertyName, direction}; PublicObjectSearchRequest types sorts as strings',
    matches: (e, w) =>
      w.part === 'request' &&
      w.route.endsWith('/search') &&
      e.keyword === 'type' &&
      /^\/sorts\/\d+$/.test(e.instancePath) &&
      typeof e.data === 'object' &&
      e.data !== null,
  },
];

export const HUBSPOT_RULES: ConformanceRules = { statuses: hubspot, headers, allowlist };
