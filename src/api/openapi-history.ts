// The write history's part of the OpenAPI document (openapi.ts spreads it into `paths`; the run's page
// in openapi-runs.ts uses the same change schema).
import { crmKinds } from '../../connectors/registry.ts';
import { RUN_KINDS } from '../store/schema.ts';
import { errorResponses } from './openapi-errors.ts';

const nullable = (type: string, description?: string) => ({
  type: [type, 'null'],
  ...(description ? { description } : {}),
});

const field = {
  type: 'object',
  required: ['field', 'attribute', 'kind', 'policy', 'old', 'new', 'decision', 'result', 'error', 'at'],
  properties: {
    field: { type: 'string', description: 'The CRM field (property) name' },
    attribute: nullable('string', 'The buyer attribute mapped into it; null for provenance fields'),
    kind: { type: 'string', enum: ['mapped', 'provenance'] },
    policy: nullable('string', 'The write policy (overwrite, ours, fill-empty); null for provenance'),
    old: nullable('string', 'What the field held before (null: empty, or not known for a failure mark)'),
    new: nullable('string', 'Our value (null clears the field)'),
    decision: {
      type: 'string',
      description:
        'write · clear (the buyer has no value any more and the field held ours) · blocked-edited-by-person (a person’s value kept) · blocked-not-empty (fill-empty kept the value) · provenance · duplicate-mark · failure-mark · undo (an undo put the value before back) · undo-kept-edit (an undo kept a person’s later edit: not_sent)',
    },
    result: {
      type: 'string',
      enum: ['ok', 'error', 'not_sent', 'pending'],
      description: 'The CRM’s answer; not_sent when a policy kept the CRM’s value',
    },
    error: nullable('string', 'The CRM’s error, when it refused the write'),
    at: { type: 'string', format: 'date-time' },
  },
} as const;

const note = {
  type: 'object',
  required: ['action', 'noteId', 'dedupeKey', 'title', 'at'],
  properties: {
    action: {
      type: 'string',
      enum: ['created', 'removed', 'closed'],
      description:
        'created by an enrichment, removed by an undo (HubSpot: archived), or closed: a follow-up task a person completed or dismissed set its provider row status (the title says which)',
    },
    noteId: { type: 'string', description: 'The CRM’s id of the note or Task' },
    dedupeKey: { type: 'string' },
    title: nullable('string'),
    at: { type: 'string', format: 'date-time' },
  },
} as const;

/** What one job (or one write outside a job, e.g. the CLI's) changed on one account. */
export const CHANGE_SCHEMA = {
  type: 'object',
  required: [
    'crm',
    'tenant',
    'accountId',
    'at',
    'runId',
    'run',
    'jobId',
    'trigger',
    'buyerId',
    'fields',
    'notes',
  ],
  properties: {
    crm: { type: 'string', enum: crmKinds() },
    tenant: { type: 'string' },
    accountId: { type: 'string' },
    at: { type: 'string', format: 'date-time', description: 'When its newest event was recorded' },
    runId: nullable('string'),
    run: {
      type: ['object', 'null'],
      required: ['kind', 'label', 'actor'],
      properties: {
        kind: { type: 'string', enum: RUN_KINDS },
        label: { type: 'string' },
        actor: nullable('string', 'Who started the run: a CRM user, an API key’s fingerprint, a CLI login…'),
      },
    },
    jobId: nullable('string'),
    trigger: nullable('string', 'What asked: webhook, refresh, backfill, review, cli, signal, digest…'),
    buyerId: nullable('string', 'The buyer the values came from'),
    fields: { type: 'array', items: field },
    notes: { type: 'array', items: note },
  },
} as const;

/** A rule a person's decision on the account taught its tenant (docs/matching.md, learning). */
const LEARNED_SCHEMA = {
  type: 'object',
  required: ['verdict', 'buyerId', 'buyerName', 'accountName', 'state', 'nameForm', 'at', 'undoneAt', 'rule'],
  properties: {
    verdict: { type: 'string', enum: ['confirm', 'reject'] },
    buyerId: { type: 'string' },
    buyerName: nullable('string'),
    accountName: nullable('string', 'The name as the person saw it'),
    state: { type: 'string', description: 'The state code of the name form; empty: none' },
    nameForm: { type: 'string', description: 'The normalised name the next account is looked up by' },
    at: { type: 'string', format: 'date-time' },
    undoneAt: nullable('string', 'When an undo or a clear took the rule back; null while it holds'),
    rule: {
      type: 'string',
      description: 'The rule in words: the reason a later match it carries gives, or what a reject forbids',
    },
  },
} as const;

/** A page of history: changes newest first, and the cursor of the older page. */
export const HISTORY_PAGE_SCHEMA = {
  type: 'object',
  required: ['changes', 'next'],
  properties: {
    changes: { type: 'array', items: CHANGE_SCHEMA },
    next: {
      type: ['string', 'null'],
      description:
        'Pass as `after` for the older page; null on the last. A job cut by a page’s edge continues on the next page under the same jobId.',
    },
  },
} as const;

export const HISTORY_PAGE_PARAMETERS = [
  {
    name: 'limit',
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
    description: 'Events (field writes and notes) per page',
  },
  {
    name: 'after',
    in: 'query',
    required: false,
    schema: { type: 'string' },
    description: 'The `next` of the previous page',
  },
] as const;

const err = (codes: number[]) =>
  errorResponses(codes, {
    403: 'The caller may not read this CRM or tenant',
    503: 'The database is unavailable; try again',
  });

export const HISTORY_PATHS = {
  '/api/accounts/{crm}/{accountId}/history': {
    get: {
      summary:
        'What we changed on the account, newest first, by job: each field old → new with the policy’s decision and the CRM’s answer, the notes we created, the run',
      description:
        'An account we never wrote answers an empty list (no CRM call is made). A CRM-signed caller reads its own CRM and tenant.',
      parameters: [
        { name: 'crm', in: 'path', required: true, schema: { type: 'string', enum: crmKinds() } },
        { name: 'accountId', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'tenant', in: 'query', required: false, schema: { type: 'string' } },
        ...HISTORY_PAGE_PARAMETERS,
      ],
      responses: {
        '200': {
          description: 'One page of the account’s history',
          content: {
            'application/json': {
              schema: {
                ...HISTORY_PAGE_SCHEMA,
                required: ['crm', 'tenant', 'accountId', 'learned', ...HISTORY_PAGE_SCHEMA.required],
                properties: {
                  crm: { type: 'string', enum: crmKinds() },
                  tenant: { type: 'string' },
                  accountId: { type: 'string' },
                  learned: { type: 'array', items: LEARNED_SCHEMA },
                  ...HISTORY_PAGE_SCHEMA.properties,
                },
              },
            },
          },
        },
        ...err([400, 401, 403, 503]),
      },
    },
  },
} as const;
