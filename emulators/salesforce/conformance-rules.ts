// The sourced rules Salesforce's answers are held to beyond its reference document (conformance mode;
// emulators/shared/conformance-rules.ts says what each kind of rule is): the statuses and errorCodes the
// REST guide documents, `Sforce-Limit-Info`, the routes outside the document (Streaming, Metadata SOAP)
// and the documented 404 of an unknown resource. SALESFORCE_REFERENCE (reference.ts) carries them.
import type {
  ConformanceRules,
  HeaderRule,
  StatusRule,
  UndocumentedRoute,
} from '../shared/conformance-rules.ts';

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
    statuses: [400],
    route: REST,
    body: sfErrors({ not: { enum: SF_CODES_WITH_A_STATUS.filter((c) => c !== 'NOT_FOUND') } }),
    why: `${SF_ERRORS}: "400 The request couldn't be understood, usually because the JSON or XML body contains an error" (MALFORMED_ID, INVALID_FIELD, …)`,
  },
  {
    statuses: [401],
    route: REST,
    body: sfErrors({ const: 'INVALID_SESSION_ID' }),
    why: `${SF_ERRORS}: "401 The session ID or OAuth token used has expired or is invalid"`,
  },
  {
    statuses: [403],
    route: REST,
    body: sfErrors({ not: { enum: SF_CODES_WITH_A_STATUS.filter((c) => c !== 'REQUEST_LIMIT_EXCEEDED') } }),
    why: `${SF_ERRORS}: "403 The request has been refused … If the error code is REQUEST_LIMIT_EXCEEDED, you've exceeded API request limits in your org"`,
  },
  {
    statuses: [404],
    route: REST,
    body: sfErrors({ enum: ['NOT_FOUND', 'ENTITY_IS_DELETED'] }),
    why: `${SF_ERRORS}: "404 The requested resource couldn't be found"`,
  },
  {
    statuses: [405, 409, 412, 414, 415, 428, 431],
    route: REST,
    body: sfNone,
    why: `${SF_ERRORS}: 405 method not allowed, 409 conflict, 412 precondition, 414 URI too long, 415 unsupported format, 428, 431`,
  },
  {
    statuses: [500],
    route: REST,
    body: sfErrors({ const: 'UNKNOWN_EXCEPTION' }),
    why: `${SF_ERRORS}: "500 An error has occurred within Lightning Platform"`,
  },
  {
    statuses: [502],
    route: REST,
    why: `${SF_ERRORS}: "502 Salesforce Edge failed to communicate with the Salesforce instance"`,
  },
  {
    statuses: [503],
    route: REST,
    body: sfErrors({ const: 'SERVER_UNAVAILABLE' }),
    why: `${SF_ERRORS}: "503 The server is unavailable to handle the request"`,
  },
  {
    statuses: [400],
    route: /^\/services\/oauth2\/token$/,
    why: 'OAuth 2.0 Refresh Token Flow and JWT Bearer Flow (Salesforce Help): a refused grant answers 400 with {error, error_description} (invalid_grant, invalid_client_id, unsupported_grant_type…)',
  },
  {
    statuses: [500, 502, 503],
    route: /^\/services\/oauth2\/token$/,
    why: `the login server's own failures, as the REST guide's 5xx (${SF_ERRORS})`,
  },
  {
    statuses: [403],
    route: /^\/services\/oauth2\/userinfo$/,
    why: 'Identity URLs (Salesforce Help), its error codes: "403 (forbidden) — Bad_OAuth_Token" for a token that is no session; the UserInfo endpoint answers for the same identity service',
  },
];

const headers: HeaderRule[] = [
  {
    name: 'Sforce-Limit-Info',
    route: /^\/services\/data\//,
    statuses: () => true,
    pattern: /^api-usage=\d+\/\d+$/,
    why: 'REST API Developer Guide, "Limits Info Header": returned in each request to the REST API, refusals included (the documents mark it required on success answers only)',
  },
];

const undocumented: UndocumentedRoute[] = [
  {
    name: 'the Streaming API (CometD)',
    path: /^\/cometd\//,
    why: 'Streaming API (CometD/Bayeux): not a REST resource; its messages are checked by test/sandbox/salesforce-streaming.unit.test.ts',
  },
  {
    name: 'the Metadata API (SOAP)',
    path: /^\/services\/Soap\//,
    why: 'the Metadata API answers SOAP XML, checked by test/sandbox/salesforce-metadata.unit.test.ts',
  },
];

export const SALESFORCE_RULES: ConformanceRules = {
  statuses: salesforce,
  headers,
  undocumented,
  unknownResource: {
    why: 'REST guide, "Status Codes and Error Responses": 404 NOT_FOUND "The requested resource does not exist"',
    answers: (body) => {
      try {
        const parsed = JSON.parse(body) as unknown;
        return (
          Array.isArray(parsed) &&
          parsed.length === 1 &&
          (parsed[0] as { errorCode?: unknown }).errorCode === 'NOT_FOUND' &&
          typeof (parsed[0] as { message?: unknown }).message === 'string'
        );
      } catch {
        return false;
      }
    },
  },
};
