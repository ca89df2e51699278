// The write history under /api: GET /api/accounts/:crm/:accountId/history (what we changed on one
// account, newest first, by job) — an API key anywhere, a CRM-signed caller on its own CRM and tenant.
// The run's part (GET /api/runs/:id) is in runs-routes.ts; both share the JSON shape made here, which
// the CLI and the admin page read too.
import type express from 'express';
import { z } from 'zod';
import type { CrmKind } from '../../connectors/types.ts';
import { learnedReason } from '../resolve/learned.ts';
import { ActionProblem } from '../review/problem.ts';
import { canonicalAccount } from '../review/schemas.ts';
import { learnedRuleOf } from '../store/learned-decisions.ts';
import type { Repositories, Store } from '../store/store.ts';
import { type HistoryEvent, type HistoryPage, isHistoryCursor } from '../store/write-history.ts';
import type { Caller } from './authenticate.ts';
import { plainQuery, type ReviewRouteContext } from './review-routes.ts';

const cursorSchema = z.string().refine(isHistoryCursor, 'must be the `next` of a previous page');

/** A page of history: `limit` events at most (grouped by job into changes), older than `after`. */
export const historyPageSchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  after: cursorSchema.optional(),
});

const accountHistoryShape = {
  ...historyPageSchema.shape,
  tenant: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a portal id or org id')
    .optional(),
};
export const accountHistoryQuerySchema = z.strictObject(accountHistoryShape);
/** A CRM-signed caller's URL also carries what its CRM appends (HubSpot: portalId, userId, …). */
const signedCallerQuerySchema = z.object(accountHistoryShape);

export interface FieldChangeJson {
  field: string;
  attribute: string | null;
  kind: 'mapped' | 'provenance';
  policy: string | null;
  old: string | null;
  new: string | null;
  decision: string;
  result: 'ok' | 'error' | 'not_sent' | 'pending';
  error: string | null;
  at: string;
}

export interface NoteJson {
  /** `created` by an enrichment, or `removed` by an undo. */
  action: 'created' | 'removed' | 'closed';
  noteId: string;
  dedupeKey: string;
  title: string | null;
  at: string;
}

/** What one job (or one write outside a job) changed on one account. */
export interface ChangeJson {
  crm: string;
  tenant: string;
  accountId: string;
  /** The newest event of the change. */
  at: string;
  runId: string | null;
  /** `actor`: who started the run (a CRM user, an API key's fingerprint, `cli (<login>)`…), if recorded. */
  run: { kind: string; label: string; actor: string | null } | null;
  jobId: string | null;
  trigger: string | null;
  buyerId: string | null;
  fields: FieldChangeJson[];
  notes: NoteJson[];
}

const sameChange = (c: ChangeJson, e: HistoryEvent) =>
  c.crm === e.crm &&
  c.tenant === e.tenant &&
  c.accountId === e.accountId &&
  c.runId === e.runId &&
  c.jobId === e.jobId &&
  c.trigger === e.trigger;

/**
 * Consecutive events of one account and one job become one change. A job's events are recorded
 * together (its write batch, its notes, its kept values), so a change splits only at a page's edge:
 * the next page then starts with the rest of it, under the same job id.
 */
export function changesOf(events: readonly HistoryEvent[]): ChangeJson[] {
  const changes: ChangeJson[] = [];
  for (const e of events) {
    let change = changes.at(-1);
    if (!change || !sameChange(change, e)) {
      change = {
        crm: e.crm,
        tenant: e.tenant,
        accountId: e.accountId,
        at: e.at.toISOString(),
        runId: e.runId,
        run: e.run,
        jobId: e.jobId,
        trigger: e.trigger,
        buyerId: e.buyerId,
        fields: [],
        notes: [],
      };
      changes.push(change);
    }
    change.buyerId ??= e.buyerId;
    const at = e.at.toISOString();
    if (e.type === 'note')
      change.notes.push({ action: e.action, noteId: e.noteId, dedupeKey: e.dedupeKey, title: e.title, at });
    else
      change.fields.push({
        field: e.field,
        attribute: e.attribute,
        kind: e.kind,
        policy: e.policy,
        old: e.old,
        new: e.new,
        decision: e.decision,
        result: e.result,
        error: e.error,
        at,
      });
  }
  return changes;
}

/** A rule the account's decisions taught, in the words its matches give (src/resolve/learned.ts). */
export function learnedJson(r: Awaited<ReturnType<Repositories['learned']['forAccount']>>[number]) {
  const rule = learnedRuleOf(r);
  const shown = `"${r.account_name ?? r.name_form}"${r.state ? ` (${r.state})` : ''}`;
  return {
    ...rule,
    nameForm: r.name_form,
    at: rule.at.toISOString(),
    undoneAt: r.undone_at ? new Date(r.undone_at).toISOString() : null,
    rule:
      r.verdict === 'confirm'
        ? learnedReason(rule)
        : `a person rejected ${r.buyer_name ?? `buyer ${r.buyer_id}`} for ${shown} on ${rule.at.toISOString().slice(0, 10)}: never its automatic match`,
  };
}

export const historyJson = (page: HistoryPage) => ({ changes: changesOf(page.events), next: page.next });

/** A store that is down is a 503 naming what could not be read, like every other read of the store. */
export async function readStore<T>(
  store: Pick<Store, 'open'>,
  fn: (repos: Repositories) => Promise<T>,
  what = 'the history',
): Promise<T> {
  try {
    return await fn(await store.open());
  } catch {
    throw new ActionProblem(503, 'store_unavailable', `could not read ${what}; try again`);
  }
}

export function addHistoryRoutes(
  router: express.Router,
  ctx: Pick<ReviewRouteContext, 'parse' | 'handle' | 'tenantFor'> & {
    store: Pick<Store, 'open'>;
    crmSchema: z.ZodType<CrmKind, unknown>;
    accountIdSchema: z.ZodType<string, unknown>;
  },
): void {
  const { parse, handle, tenantFor, store } = ctx;
  router.get(
    '/accounts/:crm/:accountId/history',
    handle(async (req, res, caller: Caller) => {
      const crm = parse(ctx.crmSchema, req.params.crm, 'crm');
      const raw = parse(ctx.accountIdSchema, req.params.accountId, 'accountId');
      const schema = caller.via === 'crm' ? signedCallerQuerySchema : accountHistoryQuerySchema;
      const query = parse(schema, plainQuery(req.query), 'query');
      // Who may ask is answered first (403), then whether the id is one of that CRM's (400).
      const tenant = tenantFor(crm, query.tenant, caller);
      const { accountId } = canonicalAccount({ crm, accountId: raw });
      // An account we never wrote has an empty history, not a 404: asking costs no CRM call, and
      // "nothing changed yet" is the answer a card shows.
      const [page, learned] = await readStore(store, ({ writes, learned }) =>
        Promise.all([
          writes.forAccount({ crm, tenant, accountId }, { limit: query.limit, after: query.after }),
          learned.forAccount({ crm, tenant, accountId }),
        ]),
      );
      res.json({ crm, tenant, accountId, learned: learned.map(learnedJson), ...historyJson(page) });
    }),
  );
}

/** A field's line in words a person reads (the CLI's table, the admin page). */
export function decisionWords(f: Pick<FieldChangeJson, 'decision' | 'result' | 'error'>): string {
  if (f.result === 'error') return `refused by the CRM: ${f.error ?? 'error'}`;
  switch (f.decision) {
    case 'write':
      return 'written';
    case 'clear':
      return 'cleared (the buyer has no value; ours was there)';
    case 'provenance':
      return 'written (provenance)';
    case 'blocked-edited-by-person':
      return 'kept (a person’s edit)';
    case 'blocked-not-empty':
      return 'kept (not empty)';
    case 'duplicate-mark':
      return 'written (duplicate mark)';
    case 'failure-mark':
      return 'written (failure mark)';
    case 'undo':
      return 'restored (undo)';
    case 'undo-kept-edit':
      return 'kept by the undo (a person’s edit)';
    default:
      return f.decision;
  }
}

/** Which run (its kind and id) or, without one, what asked for the change. */
export const changeSource = (c: Pick<ChangeJson, 'run' | 'runId' | 'trigger'>): string =>
  c.run && c.runId ? `${c.run.kind} ${c.runId}` : (c.trigger ?? 'unknown');
