// The review queue's inputs as every door takes them (API query and bodies, CLI options): validated
// here once, into the store's filter and page.
import { z } from 'zod';
import { canonicalAccountId, isCrmKind } from '../../connectors/registry.ts';
import type { CrmKind } from '../../connectors/types.ts';
import { firstTextProblem } from '../shared/text.ts';
import type { OutcomeFilter, PageRequest } from '../store/outcomes.ts';
import { COHORTS } from '../store/schema.ts';
import { ActionProblem } from './problem.ts';

export const crmSchema = z.string().refine(isCrmKind, 'is not a CRM this service speaks');
export const recordIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a CRM record id');
export const tenantIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a portal id or org id');

/**
 * The key with its account id in the CRM's one canonical form (a Salesforce id's 18 characters, a
 * HubSpot id's decimal text): every door passes an account through this, so one account never gets a
 * second outcome row, history or inbound window. 400 when the id is not one of the CRM's.
 */
export function canonicalAccount<K extends { crm: string; accountId: string }>(key: K): K {
  const accountId = canonicalAccountId(key.crm, key.accountId);
  if (accountId === undefined)
    throw new ActionProblem(
      400,
      'invalid_account_id',
      `${key.accountId.slice(0, 64)} is not a ${key.crm} account id`,
    );
  return accountId === key.accountId ? key : { ...key, accountId };
}

const confidence = z.coerce.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');
// Years past 9999 are written "+012345-…", which PostgreSQL does not read back (a 500).
const date = z.coerce
  .date({ error: 'must be an ISO date' })
  .refine((d) => d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999, 'must be an ISO date (years 1–9999)');

export const reviewFilterSchema = z.strictObject({
  cohort: z.enum([...COHORTS, 'duplicates']).optional(),
  crm: crmSchema.optional(),
  tenant: tenantIdSchema.optional(),
  state: z.string().trim().min(1).max(64).optional(),
  buyerType: z.string().trim().min(1).max(100).optional(),
  minConfidence: confidence.optional(),
  maxConfidence: confidence.optional(),
  since: date.optional(),
  until: date.optional(),
  q: z.string().trim().min(1).max(200).optional(),
});
export type ReviewFilterInput = z.infer<typeof reviewFilterSchema>;

export const reviewPageSchema = z.strictObject({
  sort: z.enum(['confidence', 'date']).default('confidence'),
  direction: z.enum(['asc', 'desc']).default('desc'),
  /** Opaque, but only ever what a previous page handed out. */
  after: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,400}$/, 'must be the `next` of a previous page')
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

export const reviewQuerySchema = reviewFilterSchema.extend(reviewPageSchema.shape);

export function outcomeFilterOf(f: ReviewFilterInput): OutcomeFilter {
  const { cohort, since, until, q, ...rest } = f;
  return {
    ...rest,
    ...(cohort === 'duplicates' ? { duplicates: true } : cohort ? { cohort } : {}),
    ...(since ? { updatedFrom: since } : {}),
    ...(until ? { updatedTo: until } : {}),
    ...(q ? { name: q } : {}),
  };
}

export function pageOf(p: z.infer<typeof reviewPageSchema>): PageRequest {
  return { sort: p.sort, direction: p.direction, limit: p.limit, ...(p.after ? { after: p.after } : {}) };
}

const accountRef = z.strictObject({
  crm: crmSchema,
  tenant: tenantIdSchema.optional(),
  accountId: recordIdSchema,
});

export const approveSelectionSchema = z.strictObject({
  accounts: z.array(accountRef).min(1).max(1000),
  preview: z.boolean().default(false),
});
export const approveFilterSchema = z.strictObject({
  filter: reviewFilterSchema.omit({ cohort: true }),
  floor: z.number().min(0).max(1),
  preview: z.boolean().default(false),
});

/** A selection (`accounts`) or a filter with a floor: told apart first, so a refusal names the field. */
export const approveSchemaFor = (body: unknown) =>
  typeof body === 'object' && body !== null && 'accounts' in body
    ? approveSelectionSchema
    : approveFilterSchema;

export const rejectBodySchema = z.strictObject({
  tenant: tenantIdSchema.optional(),
  reason: z.string().trim().min(1, 'give the reason').max(500),
});
export const clearBodySchema = z.strictObject({ tenant: tenantIdSchema.optional() });
export const researchBodySchema = z
  .strictObject({
    tenant: tenantIdSchema.optional(),
    name: z.string().trim().min(1).max(300).optional(),
    state: z.string().trim().min(1).max(64).optional(),
  })
  .refine((b) => b.name !== undefined || b.state !== undefined, 'give a name or a state to search with');

export const duplicatesQuerySchema = z.strictObject({
  crm: crmSchema.optional(),
  tenant: tenantIdSchema.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  after: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,400}$/, 'must be the `next` of a previous page')
    .optional(),
});

/** A duplicates page's cursor: the last group's key. */
export function encodeGroupCursor(key: readonly [string, string, string]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeGroupCursor(cursor: string): [string, string, string] | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const parsed = z.tuple([z.string().max(64), z.string().max(64), z.string().max(64)]).safeParse(v);
    // A crafted cursor's NUL or lone surrogate would reach PostgreSQL (a 500): no cursor of ours has one.
    return parsed.success && firstTextProblem(parsed.data) === undefined ? parsed.data : null;
  } catch {
    return null;
  }
}

export type { CrmKind };
