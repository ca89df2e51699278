// Between a job's result and the account's outcome in the store: what a job records (`recordOf`, and
// `keptOf` — the values a policy kept, which go on the write history in the outcome's statement), and
// the outcome read back in the shape the API and the admin page have always shown (`last`, `recent`).

import type { AccountRef } from '../../connectors/types.ts';
import { findState } from '../buyer-intel/states.ts';
import type { EnrichResult } from '../enrich/types.ts';
import type { FieldWriteEntry } from '../write/journal.ts';
import type { OutcomeRecord } from './outcome-rows.ts';
import type { Outcome } from './outcomes.ts';
import type { Store } from './store.ts';

export interface HistoryEntry {
  at: string;
  jobId?: string | undefined;
  /** The job failed for good: why. */
  error?: string;
  result?: EnrichResult;
}

export interface JobMeta {
  jobId?: string | undefined;
  trigger?: string | undefined;
  runId?: string | undefined;
}

/** A two-letter code when the CRM's value names a state; what was typed otherwise. */
function stateOf(raw: string | null | undefined): string | null {
  const text = raw?.trim();
  if (!text) return null;
  return findState(text)?.code ?? text.slice(0, 64);
}

export function recordOf(result: EnrichResult, meta: JobMeta = {}, at = new Date()): OutcomeRecord {
  const { account, match } = result;
  const source = match.source;
  return {
    crm: account.crm,
    tenant: account.tenant,
    accountId: account.accountId,
    accountName: account.name,
    state: stateOf(account.state),
    status: result.status,
    matchedBy: result.status !== 'enriched' ? null : source === 'pinned' || source === 'id' ? 'id' : 'name',
    buyerId: match.buyerId,
    buyerName: match.buyerName,
    buyerType: match.buyerType ?? null,
    confidence: match.confidence,
    reason: match.explanation,
    candidates: match.candidates,
    detail: { source, fields: result.fields, written: result.written, notes: result.notes },
    trigger: meta.trigger,
    runId: meta.runId,
    jobId: meta.jobId,
    at,
  };
}

/**
 * The values a policy kept from the job's writes (a person's edit under `ours`, a filled field under
 * `fill-empty`), as write-history entries. Values already in place or absent from the buyer are not
 * recorded: nothing was decided about them.
 */
export function keptOf(result: EnrichResult, meta: JobMeta = {}, at = new Date()): FieldWriteEntry[] {
  if (result.dryRun) return [];
  const { account } = result;
  return result.fields
    .filter((f) => f.decision === 'blocked-edited-by-person' || f.decision === 'blocked-not-empty')
    .map((f) => ({
      crm: account.crm,
      tenant: account.tenant,
      accountId: account.accountId,
      runId: meta.runId ?? null,
      jobId: meta.jobId ?? null,
      trigger: meta.trigger ?? null,
      buyerId: result.match.buyerId,
      field: f.property,
      attribute: f.attribute,
      kind: 'mapped',
      policy: f.policy,
      old: f.old,
      new: f.new,
      decision: f.decision,
      result: 'not_sent',
      error: null,
      at,
    }));
}

/** The outcome as the job's result it came from (the columns as the store keeps them). */
export function entryOf(o: Outcome): { account: AccountRef; entry: HistoryEntry } {
  const account = { crm: o.crm, tenant: o.tenant, accountId: o.accountId };
  const at = o.updatedAt.toISOString();
  const jobId = o.jobId ?? undefined;
  if (o.status === 'error') return { account, entry: { at, jobId, error: o.error ?? 'failed' } };
  const detail = o.detail;
  const result: EnrichResult = {
    account: { ...account, name: o.accountName, state: o.state },
    status: o.status,
    match: {
      buyerId: o.buyerId,
      buyerName: o.buyerName,
      buyerType: o.buyerType,
      confidence: o.confidence,
      source: detail?.source ?? null,
      explanation: o.reason ?? '',
      candidates: o.candidates,
    },
    fields: (detail?.fields ?? []) as EnrichResult['fields'],
    written: detail?.written ?? {},
    notes: detail?.notes ?? { created: [], alreadyPresent: 0, overCap: 0 },
    dryRun: false,
  };
  return { account, entry: { at, jobId, result } };
}

/** What the API and the admin page read: each account's last outcome, from the store. */
export class OutcomeHistory {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async last(ref: AccountRef): Promise<HistoryEntry | null> {
    const { outcomes } = await this.#store.open();
    const outcome = await outcomes.get(ref);
    return outcome ? entryOf(outcome).entry : null;
  }

  /** The most recently enriched accounts, newest first. */
  async recent(limit = 100): Promise<{ account: AccountRef; entry: HistoryEntry }[]> {
    const { outcomes } = await this.#store.open();
    const { rows } = await outcomes.list({}, { sort: 'date', direction: 'desc', limit });
    return rows.map(entryOf);
  }
}
