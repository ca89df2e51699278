// The sourced rules the Buyer Intelligence sandbox's answers are held to beyond the provider's OpenAPI
// (conformance mode; emulators/shared/conformance-rules.ts says what each kind of rule is): what each
// listed error status means, the two operations without shapes, and one type the document contradicts.
// BUYER_INTEL_REFERENCE (reference.ts) carries them.
import type {
  Allowance,
  ConformanceRules,
  StatusRule,
  UndocumentedRoute,
} from '../shared/conformance-rules.ts';

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
  statuses: [Number(status)],
  route: BI_ALL,
  body: biError(Number(status), String(code)),
  why: `${BI_ERRORS}: ${status} "${meaning}"`,
}));

const allowlist: Allowance[] = [
  {
    why: 'BridgeRowColumnValueResponse.status is typed ["string", "null"] but its enum lists no null: a column not processed yet answers status null, which the type allows',
    matches: (e) =>
      e.keyword === 'enum' && /\/columns\/[^/]+\/status$/.test(e.instancePath) && e.data === null,
  },
];

const undocumented: UndocumentedRoute[] = [
  {
    name: 'getBuyerSchema and searchBuyersByCriteria',
    path: /^\/api\/external\/buyer\/(schema|search)$/,
    why: 'getBuyerSchema and searchBuyersByCriteria: named by the provider contract (buyer-intelligence-api.md), shapes "not shown" there and absent from the published OpenAPI; test/buyer-intel/client-operations.unit.test.ts covers them',
  },
];

export const BUYER_INTEL_RULES: ConformanceRules = { statuses: buyerIntel, allowlist, undocumented };
