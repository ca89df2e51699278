// POST /api/undo in the OpenAPI document (openapi.ts spreads it into `paths`).
import { crmKinds } from '../../connectors/registry.ts';
import { errorResponses } from './openapi-errors.ts';

const nullable = (type: string, description?: string) => ({
  type: [type, 'null'],
  ...(description ? { description } : {}),
});

const err = (codes: number[]) =>
  errorResponses(codes, {
    403: 'A CRM-signed caller asked for a run, a job, or another CRM’s or tenant’s account',
    404: 'No such run, or nothing recorded for the job or account',
    502: 'The CRM failed while a dry run read the accounts',
    503: 'The database or the queue is unavailable; try again',
  });

const counts = (what: string) => ({
  type: 'object',
  required: ['restore', 'skip', 'unchanged'],
  properties: {
    restore: { type: 'integer', description: `Values ${what} to their value before our write` },
    skip: { type: 'integer', description: 'Values a person changed since we wrote them: kept' },
    unchanged: { type: 'integer', description: 'Fields already holding their value before' },
    ours: {
      type: 'integer',
      description: 'Fields a later write of ours holds: left for an undo of that write (not a person’s)',
    },
  },
});

const plannedAccount = {
  type: 'object',
  required: ['crm', 'tenant', 'accountId', 'buyerId', 'gone', 'fields', 'notes', 'notesRemovedBefore'],
  properties: {
    crm: { type: 'string', enum: crmKinds() },
    tenant: { type: 'string' },
    accountId: { type: 'string' },
    buyerId: nullable('string', 'The buyer of the writes taken back'),
    gone: {
      type: 'boolean',
      description: 'The account is no longer in the CRM (its notes are still removed)',
    },
    fields: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'kind', 'now', 'wrote', 'before', 'action'],
        properties: {
          field: { type: 'string' },
          kind: { type: 'string', enum: ['mapped', 'provenance'] },
          now: nullable('string', 'What the CRM holds now'),
          wrote: nullable('string', 'What our undone writes left'),
          before: nullable('string', 'The value before them: what a restore writes (null clears)'),
          action: {
            type: 'string',
            enum: ['restore', 'skip', 'unchanged', 'ours'],
            description:
              'restore: the CRM still holds ours; skip: a person changed it (kept); unchanged: as before; ours: a later write of ours holds it (left)',
          },
        },
      },
    },
    notes: {
      type: 'array',
      description: 'Notes (Tasks, ContentNotes) we created that the undo removes',
      items: {
        type: 'object',
        required: ['noteId', 'dedupeKey', 'title'],
        properties: { noteId: { type: 'string' }, dedupeKey: { type: 'string' }, title: nullable('string') },
      },
    },
    notesRemovedBefore: { type: 'integer', description: 'Notes an earlier undo removed already' },
  },
} as const;

export const UNDO_PATHS = {
  '/api/undo': {
    post: {
      summary: 'Take back what a run, a job or an account’s last change wrote (dry run first)',
      description:
        'Each field goes back to its value before only where the CRM still holds the value we wrote (a person’s later edit is kept and reported as skipped); the notes we created are removed (HubSpot: archived). A dry run answers the plan. A real undo is an undo run, queued: follow it at GET /api/runs/{id}; it can be undone in turn ({"run": its id}). Asking again while it runs is the same run. An API key may undo anything; a CRM-signed caller only an account of its own CRM and tenant.',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              description: 'One of run, job or account',
              properties: {
                run: { type: 'string', description: 'A run id (GET /api/runs)' },
                job: { type: 'string', description: 'A job id (the history names it)' },
                account: {
                  type: 'object',
                  description: 'The account’s last change that was not itself an undo',
                  required: ['crm', 'accountId'],
                  properties: {
                    crm: { type: 'string', enum: crmKinds() },
                    accountId: { type: 'string' },
                    tenant: { type: 'string', description: 'Optional when only one is configured' },
                  },
                },
                dryRun: { type: 'boolean', default: false },
                limit: {
                  type: 'integer',
                  minimum: 1,
                  maximum: 1000,
                  default: 100,
                  description: 'A dry run reads this many accounts from the CRM (a run’s first ones)',
                },
              },
            },
          },
        },
      },
      responses: {
        '200': {
          description: 'The dry run’s plan: nothing was written',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: [
                  'dryRun',
                  'what',
                  'remarks',
                  'total',
                  'planned',
                  'complete',
                  'totals',
                  'fields',
                  'accounts',
                ],
                properties: {
                  dryRun: { const: true },
                  what: { type: 'string', description: 'What the undo takes back, in words' },
                  remarks: { type: 'array', items: { type: 'string' } },
                  total: { type: 'integer', description: 'Accounts the undo concerns' },
                  planned: { type: 'integer', description: 'Accounts read and planned (up to limit)' },
                  complete: { type: 'boolean', description: 'Every account was planned' },
                  totals: {
                    ...counts('to put back'),
                    required: [
                      'restore',
                      'skip',
                      'unchanged',
                      'accounts',
                      'notes',
                      'notesRemovedBefore',
                      'gone',
                    ],
                    properties: {
                      ...counts('to put back').properties,
                      accounts: {
                        type: 'integer',
                        description: 'Accounts with something to write or remove',
                      },
                      notes: { type: 'integer', description: 'Notes to remove' },
                      notesRemovedBefore: { type: 'integer' },
                      gone: { type: 'integer', description: 'Accounts no longer in the CRM' },
                    },
                  },
                  fields: {
                    type: 'object',
                    description: 'Per CRM field',
                    additionalProperties: counts('to put back'),
                  },
                  accounts: { type: 'array', items: plannedAccount },
                },
              },
            },
          },
        },
        '202': {
          description: 'The undo run is queued (or, asked again while it runs, the same run)',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['runId', 'jobId', 'resumed', 'what', 'remarks'],
                properties: {
                  runId: { type: 'string', description: 'The undo run: GET /api/runs/{id}' },
                  jobId: { type: 'string' },
                  resumed: { type: 'boolean', description: 'An interrupted undo of the same writes goes on' },
                  what: { type: 'string' },
                  remarks: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
        },
        ...err([400, 401, 403, 404, 502, 503]),
      },
    },
  },
} as const;
