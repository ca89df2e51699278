// The runs' part of the OpenAPI document (openapi.ts spreads it into `paths`).
import { OUTCOME_STATUSES, RUN_KINDS } from '../store/schema.ts';
import { errorResponses } from './openapi-errors.ts';
import { HISTORY_PAGE_PARAMETERS, HISTORY_PAGE_SCHEMA } from './openapi-history.ts';

const err = (codes: number[]) =>
  errorResponses(codes, {
    403: 'A CRM-signed caller: runs are read with an API key (a CRM caller reads only the undo of its own account)',
    404: 'No such run',
    503: 'The database is unavailable; try again',
  });

const run = {
  type: 'object',
  required: ['id', 'kind', 'label', 'actor', 'startedAt', 'finishedAt', 'counts'],
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', enum: RUN_KINDS },
    label: {
      type: 'string',
      description: 'e.g. "HubSpot webhook: 3 events", "backfill of 2500 accounts (…)"',
    },
    actor: { type: ['string', 'null'], description: 'Who started it (API key fingerprint, CLI user, …)' },
    startedAt: { type: 'string', format: 'date-time' },
    finishedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When it finished queueing (backfills, re-enrichments, bulk approvals)',
    },
    counts: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      description:
        'What it queued, e.g. { received, queued } or { queued, scanned }; a backfill still listing: what it queued so far',
    },
  },
} as const;

export const RUN_PATHS = {
  '/api/runs': {
    get: {
      summary:
        'Runs newest first (a webhook delivery, a refresh, a backfill, a re-enrichment, a confirm, a review decision), keyset-paged',
      parameters: [
        { name: 'kind', in: 'query', required: false, schema: { type: 'string', enum: RUN_KINDS } },
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
        },
        {
          name: 'after',
          in: 'query',
          required: false,
          schema: { type: 'string' },
          description: 'The `next` of the previous page',
        },
      ],
      responses: {
        '200': {
          description: 'One page of runs and the next cursor (null on the last page)',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['runs', 'next'],
                properties: { runs: { type: 'array', items: run }, next: { type: ['string', 'null'] } },
              },
            },
          },
        },
        ...err([400, 401, 403, 503]),
      },
    },
  },
  '/api/runs/{id}': {
    get: {
      summary:
        'A run, how its accounts stand (their latest outcomes that name the run, by status), what it changed, and a page of its write history',
      description:
        'Read with an API key. A CRM-signed caller (the HubSpot card) may read one kind of run: the undo of an account of its own CRM and tenant (POST /api/undo answered its id), to follow it to its end.',
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        ...HISTORY_PAGE_PARAMETERS,
      ],
      responses: {
        '200': {
          description: 'The run',
          content: {
            'application/json': {
              schema: {
                ...run,
                required: [...run.required, 'accounts', 'outcomes', 'writes', 'history'],
                properties: {
                  ...run.properties,
                  accounts: {
                    type: 'integer',
                    description:
                      'Accounts whose latest outcome is of this run (a later run takes them): while a backfill runs, its progress, each account once its outcome is recorded',
                  },
                  outcomes: {
                    type: 'object',
                    required: OUTCOME_STATUSES,
                    properties: Object.fromEntries(OUTCOME_STATUSES.map((s) => [s, { type: 'integer' }])),
                  },
                  writes: {
                    type: 'object',
                    description: 'What the run changed, counted from its write history',
                    required: [
                      'accounts',
                      'fieldsWritten',
                      'fieldsFailed',
                      'fieldsSkipped',
                      'notesCreated',
                      'notesRemoved',
                    ],
                    properties: {
                      accounts: {
                        type: 'integer',
                        description: 'Accounts it wrote, kept a value of, or noted',
                      },
                      fieldsWritten: { type: 'integer' },
                      fieldsFailed: { type: 'integer', description: 'Writes the CRM refused' },
                      fieldsSkipped: {
                        type: 'integer',
                        description:
                          'Values a policy kept (a person’s edit, a filled field); a kept value is recorded once until it changes',
                      },
                      notesCreated: { type: 'integer' },
                      notesRemoved: { type: 'integer', description: 'Notes an undo removed' },
                    },
                  },
                  history: { ...HISTORY_PAGE_SCHEMA, description: 'The run’s changes, newest first, by job' },
                },
              },
            },
          },
        },
        ...err([400, 401, 403, 404, 503]),
      },
    },
  },
} as const;
