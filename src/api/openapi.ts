// The OpenAPI 3.1 document of our own HTTP API (served at /api/openapi.json) and a plain page that
// reads it (/api/docs). Kept next to the routes it describes; a test checks every path is served.
import { CRMS, crmKinds } from '../../connectors/registry.ts';
import { errorResponses } from './openapi-errors.ts';
import { HISTORY_PATHS } from './openapi-history.ts';
import { REVIEW_PATHS } from './openapi-review.ts';
import { RUN_PATHS } from './openapi-runs.ts';
import { UNDO_PATHS } from './openapi-undo.ts';

const error = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string' }, message: { type: 'string' } },
} as const;
const errors = (...codes: number[]) => errorResponses(codes, DESCRIPTIONS);
const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad input; the message names the problem',
  401: 'Not authenticated',
  403: 'The caller may not act on this CRM or tenant',
  404: 'Not found',
  413: 'Body too large',
  502: 'The CRM failed',
  503: 'Redis or the database is unavailable; try again after Retry-After seconds',
};
const signedSchemes = CRMS.flatMap((c) => (c.signedRequestScheme ? [c.signedRequestScheme] : []));

const account = {
  crm: { type: 'string', enum: crmKinds() },
  tenant: {
    type: 'string',
    description: `${CRMS.map((c) => `${c.label} ${c.tenantNoun} id`).join(' or ')}; optional when only one is configured`,
  },
  accountId: { type: 'string' },
} as const;
const queued = {
  description: 'Queued',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['jobId'],
        properties: {
          jobId: { type: 'string' },
          deduplicated: {
            type: 'boolean',
            description: 'true when a request moments ago already queued this job',
          },
        },
      },
    },
  },
} as const;

export const OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: 'Buyer Intel Sync API',
    version: '1.0.0',
    description:
      'Refresh CRM accounts from the Public-Sector Buyer Intelligence API, follow the job, read and confirm matches, review the queue, follow runs, read what we changed on an account, undo a run, a job or an account’s last change. CRM events arrive on the webhooks.',
  },
  components: {
    securitySchemes: {
      apiKey: { type: 'http', scheme: 'bearer', description: 'A per-install API key (API_KEYS)' },
      ...Object.fromEntries(signedSchemes.map((s) => [s.name, s.scheme])),
    } as Record<string, { description: string }>,
    schemas: { Error: error },
  },
  security: [{ apiKey: [] }, ...signedSchemes.map((s) => ({ [s.name]: [] }))],
  paths: {
    '/api/refresh': {
      post: {
        summary: 'Enrich an account now (highest priority); a double click is one job',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['crm', 'accountId'],
                additionalProperties: false,
                properties: account,
              },
            },
          },
        },
        responses: { '202': queued, ...errors(400, 401, 403, 503) },
      },
    },
    '/api/jobs/{id}': {
      get: {
        summary: 'A job’s state, progress and result (match, fields old → new, notes)',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'The job',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'state'],
                  properties: {
                    id: { type: 'string' },
                    state: {
                      type: 'string',
                      enum: [
                        'waiting',
                        'prioritized',
                        'active',
                        'delayed',
                        'completed',
                        'failed',
                        'waiting-children',
                        'unknown',
                      ],
                    },
                    progress: {},
                    attemptsMade: { type: 'integer' },
                    result: {
                      type: 'object',
                      description:
                        'One account’s job: status, match, fields [{property, attribute, policy, old, new, decision, reason}], written, notes',
                    },
                    accounts: {
                      type: 'array',
                      description:
                        'A backfill chunk’s accounts: each with its status and result (status, match without candidates, written, notes; every field’s decision is in the account’s history), the status an earlier run recorded, or the job it was handed to (handedOff, reason)',
                      items: { type: 'object' },
                    },
                    failedReason: { type: 'string' },
                  },
                },
              },
            },
          },
          ...errors(401, 404, 503),
        },
      },
    },
    '/api/accounts/{crm}/{accountId}': {
      get: {
        summary: 'The account’s match as the CRM holds it, with the candidates when it needs review',
        parameters: [
          { name: 'crm', in: 'path', required: true, schema: account.crm },
          { name: 'accountId', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'tenant', in: 'query', required: false, schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'The match',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    crm: account.crm,
                    tenant: { type: 'string' },
                    accountId: { type: 'string' },
                    name: { type: ['string', 'null'], description: 'The account name as the CRM holds it' },
                    state: {
                      type: ['string', 'null'],
                      description: 'The state as the CRM holds it (a code, a name, or what a person typed)',
                    },
                    status: {
                      type: 'string',
                      enum: ['enriched', 'needs_review', 'no_match', 'error', 'never'],
                    },
                    pinned: {
                      type: 'boolean',
                      description: 'A person rejected it: no_match, never searched again until cleared',
                    },
                    buyerId: { type: ['string', 'null'] },
                    buyerName: { type: ['string', 'null'] },
                    confidence: { type: ['number', 'null'] },
                    explanation: { type: ['string', 'null'] },
                    lastEnrichedAt: { type: ['string', 'null'] },
                    candidates: { type: 'array', items: { type: 'object' } },
                  },
                },
              },
            },
          },
          ...errors(400, 401, 403, 404, 502, 503),
        },
      },
    },
    '/api/accounts/{crm}/{accountId}/confirm': {
      post: {
        summary: 'Confirm one candidate of a "needs review" match: pins the buyer and enriches',
        parameters: [
          { name: 'crm', in: 'path', required: true, schema: account.crm },
          { name: 'accountId', in: 'path', required: true, schema: { type: 'string' } },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['buyerId'],
                additionalProperties: false,
                properties: { tenant: account.tenant, buyerId: { type: 'string' } },
              },
            },
          },
        },
        responses: { '202': queued, ...errors(400, 401, 403, 502, 503) },
      },
    },
    ...REVIEW_PATHS,
    ...RUN_PATHS,
    ...HISTORY_PATHS,
    ...UNDO_PATHS,
  },
  webhooks: {
    ...Object.fromEntries(
      CRMS.filter((c) => c.webhookSummary).map((c) => [
        c.kind,
        {
          post: {
            summary: `POST /webhooks/${c.kind} — ${c.webhookSummary}`,
            responses: { '200': { description: 'Acknowledged' } },
          },
        },
      ]),
    ),
    'buyer-intel': {
      post: {
        summary: 'POST /webhooks/buyer-intel — the provider’s row events (Standard Webhooks)',
        responses: { '200': { description: 'Accepted' } },
      },
    },
  },
} as const;

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);

export function renderApiDocs(): string {
  const ops = Object.entries(OPENAPI.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => {
      const codes = Object.keys((op as { responses: Record<string, unknown> }).responses).join(', ');
      return `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${esc(path)}</code></td><td>${esc((op as { summary: string }).summary)}</td><td>${codes}</td></tr>`;
    }),
  );
  const auth = Object.entries(OPENAPI.components.securitySchemes)
    .map(([name, s]) => `<li><strong>${esc(name)}</strong>: ${esc(s.description)}</li>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(OPENAPI.info.title)}</title>
<style>body{font:14px/1.5 system-ui,sans-serif;margin:24px;max-width:1100px}td,th{padding:6px 10px;border-bottom:1px solid #e3e6ec;text-align:left;vertical-align:top}table{border-collapse:collapse}</style></head>
<body><h1>${esc(OPENAPI.info.title)}</h1><p>${esc(OPENAPI.info.description)}</p>
<p>Machine-readable: <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI ${OPENAPI.openapi}).</p>
<h2>Authentication (one of)</h2><ul>${auth}</ul>
<h2>Endpoints</h2><table><thead><tr><th>Method</th><th>Path</th><th>What</th><th>Answers</th></tr></thead><tbody>${ops.join('')}</tbody></table>
<p>Errors are JSON: <code>{"error": "...", "message": "..."}</code>.</p></body></html>`;
}
