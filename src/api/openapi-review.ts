// The review queue's part of the OpenAPI document (openapi.ts spreads it into `paths`).
import { crmKinds } from '../../connectors/registry.ts';
import { COHORTS } from '../store/schema.ts';
import { errorResponses } from './openapi-errors.ts';

const err = (codes: number[]) => errorResponses(codes);
const q = (name: string, schema: Record<string, unknown>, description?: string) => ({
  name,
  in: 'query',
  required: false,
  schema,
  ...(description ? { description } : {}),
});
const crm = { type: 'string', enum: crmKinds() };
const confidence = { type: 'number', minimum: 0, maximum: 1 };
const filterQuery = [
  q('crm', crm),
  q('tenant', { type: 'string' }),
  q('state', { type: 'string' }, 'Two-letter code'),
  q('buyerType', { type: 'string' }),
  q('minConfidence', confidence),
  q('maxConfidence', confidence),
  q('since', { type: 'string', format: 'date-time' }),
  q('until', { type: 'string', format: 'date-time' }),
  q('q', { type: 'string' }, 'Part of the account name, any case'),
];
const filterBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    crm,
    tenant: { type: 'string' },
    state: { type: 'string' },
    buyerType: { type: 'string' },
    minConfidence: confidence,
    maxConfidence: confidence,
    since: { type: 'string', format: 'date-time' },
    until: { type: 'string', format: 'date-time' },
    q: { type: 'string' },
  },
};
const path = [
  { name: 'crm', in: 'path', required: true, schema: crm },
  { name: 'accountId', in: 'path', required: true, schema: { type: 'string' } },
];
const queuedDecision = {
  description: 'Recorded and queued',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['jobId', 'runId'],
        properties: { jobId: { type: 'string' }, runId: { type: 'string' }, wasPinned: { type: 'boolean' } },
      },
    },
  },
};
const jsonBody = (schema: Record<string, unknown>) => ({
  required: true,
  content: { 'application/json': { schema } },
});

export const REVIEW_PATHS = {
  '/api/review': {
    get: {
      summary: 'The review queue: counts per cohort and one page of accounts (keyset-paged)',
      parameters: [
        q('cohort', { type: 'string', enum: [...COHORTS, 'duplicates'] }),
        ...filterQuery,
        q('sort', { type: 'string', enum: ['confidence', 'date'], default: 'confidence' }),
        q('direction', { type: 'string', enum: ['asc', 'desc'], default: 'desc' }),
        q('after', { type: 'string' }, 'The `next` of the previous page'),
        q('limit', { type: 'integer', minimum: 1, maximum: 500, default: 50 }),
      ],
      responses: {
        '200': {
          description: 'Counts, rows and the next cursor (null on the last page)',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['counts', 'rows', 'next'],
                properties: {
                  counts: { type: 'object', additionalProperties: { type: 'integer' } },
                  rows: { type: 'array', items: { type: 'object' } },
                  next: { type: ['string', 'null'] },
                },
              },
            },
          },
        },
        ...err([400, 401, 403, 503]),
      },
    },
  },
  '/api/review/duplicates': {
    get: {
      summary:
        'Duplicates groups (accounts of one tenant resolved to one buyer) with the recommended account',
      parameters: [
        q('crm', crm),
        q('tenant', { type: 'string' }),
        q('after', { type: 'string' }),
        q('limit', { type: 'integer', minimum: 1, maximum: 200, default: 50 }),
      ],
      responses: { '200': { description: 'Groups and the next cursor' }, ...err([400, 401, 403, 503]) },
    },
  },
  '/api/review/approve': {
    post: {
      summary:
        'Approve the top candidate of the selected accounts, or of every needs_review account the filter shows scoring at least `floor`; `preview: true` only counts',
      requestBody: jsonBody({
        oneOf: [
          {
            type: 'object',
            required: ['accounts'],
            additionalProperties: false,
            properties: {
              accounts: {
                type: 'array',
                maxItems: 1000,
                items: {
                  type: 'object',
                  required: ['crm', 'accountId'],
                  properties: { crm, tenant: { type: 'string' }, accountId: { type: 'string' } },
                },
              },
              preview: { type: 'boolean' },
            },
          },
          {
            type: 'object',
            required: ['filter', 'floor'],
            additionalProperties: false,
            properties: { filter: filterBody, floor: confidence, preview: { type: 'boolean' } },
          },
        ],
      }),
      responses: {
        '200': { description: 'The preview: { preview: true, count, sample }' },
        '202': { description: 'Approved: { preview: false, runId, approved, skipped }' },
        ...err([400, 401, 403, 503]),
      },
    },
  },
  '/api/accounts/{crm}/{accountId}/reject': {
    post: {
      summary: 'Reject: the account becomes a pinned no_match, never searched again until cleared',
      parameters: path,
      requestBody: jsonBody({
        type: 'object',
        required: ['reason'],
        additionalProperties: false,
        properties: { tenant: { type: 'string' }, reason: { type: 'string', maxLength: 500 } },
      }),
      responses: { '202': queuedDecision, ...err([400, 401, 403, 503]) },
    },
  },
  '/api/accounts/{crm}/{accountId}/clear': {
    post: {
      summary: 'Clear a rejection: the account is resolved again',
      parameters: path,
      responses: { '202': queuedDecision, ...err([400, 401, 403, 503]) },
    },
  },
  '/api/accounts/{crm}/{accountId}/research': {
    post: {
      summary: "Search again with an edited name and/or state (the CRM's own fields stay as they are)",
      parameters: path,
      requestBody: jsonBody({
        type: 'object',
        additionalProperties: false,
        properties: { tenant: { type: 'string' }, name: { type: 'string' }, state: { type: 'string' } },
      }),
      responses: { '202': queuedDecision, ...err([400, 401, 403, 503]) },
    },
  },
} as const;
