// Size: the undo's loop — lock, read, apply, record, resume — in one place, so its order stays visible.
// Undo: takes back what one run, one job, or an account's last change wrote. Per account and field the
// value before goes back only where the CRM still holds the value we wrote (a person's later edit is
// kept and reported), and the notes we created are removed. The undo is itself a run whose writes go on
// the history, so it can be undone in turn.
//
// Batched and resumable: accounts go a batch at a time (the connector's read and update sizes) through
// the same connectors, call budgets and retries as every write. Each batch is recorded in one
// transaction with the accounts it finished; an interrupted undo (Ctrl-C, a kill, a worker lost) is
// resumed by the same undo, which skips what is done and never writes an account twice. An undo of
// writes already taken back finds nothing left to do.
import { randomUUID } from 'node:crypto';
import type { AccountRef, CrmConnector, CrmKind } from '../../connectors/types.ts';
import { PROVENANCE_FIELDS as P } from '../map/provenance.ts';
import type { AccountLocks } from '../signals/account-lock.ts';
import type { Run } from '../store/runs.ts';
import type { Repositories, Store } from '../store/store.ts';
import { scopeTarget, type UndoAccount, type UndoScope, undoAccountKey } from '../store/undo.ts';
import { applyBatch } from './apply.ts';
import { CLAIM_MS, claimRun, holderName } from './claim.ts';
import {
  type AccountPlan,
  countFields,
  type FieldCounts,
  hasWork,
  NO_FIELD_COUNTS,
  planAccounts,
} from './plan.ts';
import { addCounts, NO_COUNTS, outcomesAfter, recordOf, type UndoCounts } from './record.ts';
import { type RetryOptions, withRetries } from './retry.ts';
import type { Resolved } from './target.ts';

export { UndoRunning } from './claim.ts';
export type { UndoCounts } from './record.ts';

/** The Redis ledgers an undo makes stale (src/write/ledgers.ts). */
export interface UndoLedgers {
  forgetNotes(account: AccountRef, keys: readonly string[]): Promise<void>;
  recordMatch(account: AccountRef, buyerId: string | null): Promise<void>;
}

export interface UndoDeps {
  store: Pick<Store, 'open'>;
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
  ledgers?: UndoLedgers | undefined;
  /** The enrich worker's per-account locks: an undo and an enrichment never write one account at once. */
  locks?: AccountLocks | undefined;
  retry?: RetryOptions | undefined;
  now?: () => Date;
}

export interface UndoProgress {
  /** Accounts handled so far (this attempt and, resumed, the ones before). */
  done: number;
  total: number;
  counts: UndoCounts;
}

interface Batch {
  connector: CrmConnector;
  plans: AccountPlan[];
  /** Accounts an enrichment held for longer than the lock waits: left for the same undo to resume. */
  busy: UndoAccount[];
  /** Frees the accounts' locks (taken before the CRM was read, so no write lands between). */
  release(): Promise<void>;
}

/**
 * The accounts a batch at a time, each planned from the history and what the CRM holds now; with a
 * `lockOwner`, each batch's accounts are locked before the CRM is read, until the caller releases them.
 */
async function* batchesOf(
  deps: UndoDeps,
  repos: Repositories,
  scope: UndoScope,
  accounts: readonly UndoAccount[],
  lockOwner?: string,
  keepFields?: readonly string[],
): AsyncGenerator<Batch> {
  const keep = new Set(keepFields);
  // Fields to keep are a move's take-back's (src/undo/take-back.ts): what the new match holds.
  const move = keepFields !== undefined;
  const groups = new Map<string, UndoAccount[]>();
  for (const a of accounts) {
    const key = `${a.crm}\u0000${a.tenant}`;
    groups.set(key, [...(groups.get(key) ?? []), a]);
  }
  for (const group of groups.values()) {
    const { crm, tenant } = group[0] as UndoAccount;
    const connector = deps.connectorFor(crm, tenant);
    const size = Math.max(1, Math.min(connector.maxReadBatch, connector.maxUpdateBatch));
    for (let i = 0; i < group.length; i += size) {
      const asked = group.slice(i, i + size);
      const taken =
        lockOwner && deps.locks
          ? await deps.locks.take(asked, lockOwner)
          : { held: asked, release: async () => undefined };
      const chunk = taken.held;
      const busy = asked.filter((a: UndoAccount) => !chunk.includes(a));
      try {
        const ids = chunk.map((a) => a.accountId);
        if (!ids.length) {
          yield { connector, plans: [], busy, release: taken.release };
          continue;
        }
        const fields = (await repos.undo.fieldsOf(scope, crm, tenant, ids)).filter((f) => !keep.has(f.field));
        const notes = await repos.undo.notesOf(scope, crm, tenant, ids);
        // The match's fields come along: the Redis cache of which buyer an account matched follows them.
        const names = [...new Set([...fields.map((f) => f.field), P.buyerId, P.status])];
        const snapshots = await withRetries(() => connector.getAccounts(ids, names), deps.retry);
        yield {
          connector,
          plans: planAccounts(chunk, fields, notes, snapshots, { move }),
          busy,
          release: taken.release,
        };
      } finally {
        // A consumer that stopped early (or a failed read) must not leave the accounts locked.
        await taken.release();
      }
    }
  }
}

export interface UndoPreview {
  what: string;
  remarks: string[];
  /** Accounts the undo concerns. */
  total: number;
  /** The accounts planned (all of them, or the first `limit`). */
  accounts: AccountPlan[];
  fields: Record<string, FieldCounts>;
  totals: FieldCounts & {
    /** Accounts with something to write or remove. */
    accounts: number;
    notes: number;
    /** Notes an earlier undo removed already. */
    notesRemovedBefore: number;
    /** Accounts no longer in the CRM. */
    gone: number;
  };
}

/** What the undo would do, read from the history and the CRM; nothing is written. */
export async function previewUndo(
  deps: UndoDeps,
  resolved: Resolved,
  options: { limit?: number | undefined; onProgress?: (done: number, total: number) => void } = {},
): Promise<UndoPreview> {
  const repos = await deps.store.open();
  const all = await repos.undo.accountsOf(resolved.scope);
  const planned: AccountPlan[] = [];
  const wanted = all.slice(0, options.limit ?? all.length);
  for await (const batch of batchesOf(deps, repos, resolved.scope, wanted, undefined, resolved.keepFields)) {
    planned.push(...batch.plans);
    options.onProgress?.(planned.length, wanted.length);
  }
  const fields = countFields(planned);
  const sum = (pick: (c: FieldCounts) => number) => Object.values(fields).reduce((n, c) => n + pick(c), 0);
  return {
    what: resolved.what,
    remarks: resolved.remarks,
    total: all.length,
    accounts: planned,
    fields,
    totals: {
      restore: sum((c) => c.restore),
      unchanged: sum((c) => c.unchanged),
      skip: sum((c) => c.skip),
      ours: sum((c) => c.ours),
      accounts: planned.filter(hasWork).length,
      notes: planned.reduce((n, p) => n + p.notes.length, 0),
      notesRemovedBefore: planned.reduce((n, p) => n + p.notesRemovedBefore, 0),
      gone: planned.filter((p) => p.gone).length,
    },
  };
}

export interface UndoOutcome {
  runId: string;
  what: string;
  remarks: string[];
  /** An interrupted undo of the same target was resumed. */
  resumed: boolean;
  /** Stopped by the signal after a batch: the same undo resumes. */
  interrupted: boolean;
  total: number;
  /** Accounts not finished (the CRM refused them for now): the same undo sends them again. */
  pending: number;
  counts: UndoCounts;
  /** Per field, what became of it in this attempt (a resumed undo: since it resumed). */
  fields: Record<string, FieldCounts>;
  /** The values a person changed since we wrote them, kept (the first KEPT_SHOWN). */
  kept: KeptValue[];
}

export interface KeptValue extends UndoAccount {
  field: string;
  /** The person's value, kept. */
  current: string | null;
  /** The value before our write, which the undo did not put back over theirs. */
  before: string | null;
}

const KEPT_SHOWN = 200;

/** Runs the undo (or resumes the interrupted one of the same target) as an undo run. */
export async function runUndo(
  deps: UndoDeps,
  resolved: Resolved,
  options: {
    actor?: string | undefined;
    /** Stops after the batch in progress, recorded: the same undo resumes. */
    signal?: AbortSignal | undefined;
    onProgress?: (progress: UndoProgress) => void;
    /** Another process runs the same undo: wait for it (true) instead of refusing with UndoRunning. */
    wait?: boolean | undefined;
    /** Names this runner in the claim (default: host and pid). */
    holder?: string | undefined;
  } = {},
): Promise<UndoOutcome> {
  const repos = await deps.store.open();
  const { undo } = repos;
  // What the undone decisions taught the resolver is taken back with them (src/resolve/learned.ts).
  await repos.learned.undoFor(resolved.scope);
  const opened = await undo.openRun(scopeTarget(resolved.scope), {
    label: `undo of ${resolved.what}`,
    actor: options.actor,
  });
  const holder = options.holder ?? holderName(randomUUID().slice(0, 8));
  const claimed = await claimRun(undo, opened.run.id, holder, options);
  const renewal = setInterval(() => {
    undo.claim(opened.run.id, holder, CLAIM_MS).catch(() => undefined);
  }, CLAIM_MS / 3);
  try {
    // Read after the claim: whatever another runner did before is in the run's counts.
    const run = (await repos.runs.get(opened.run.id)) ?? opened.run;
    if (claimed.finished) return await finishedOutcome(repos, run, resolved);
    return await runClaimed(deps, repos, resolved, run, opened.resumed, options);
  } finally {
    clearInterval(renewal);
    await undo.releaseClaim(opened.run.id, holder).catch(() => undefined);
  }
}

/** A run another process finished while this one waited: its outcome, with the run's counts. */
async function finishedOutcome(repos: Repositories, run: Run, resolved: Resolved): Promise<UndoOutcome> {
  const total = (await repos.undo.accountsOf(resolved.scope)).length;
  return {
    runId: run.id,
    what: resolved.what,
    remarks: [
      ...resolved.remarks,
      `undo run ${run.id} was finished by another process while this one waited`,
    ],
    resumed: true,
    interrupted: false,
    total,
    pending: 0,
    counts: { ...NO_COUNTS, ...run.counts },
    fields: {},
    kept: await repos.undo.keptBy(run.id, KEPT_SHOWN),
  };
}

async function runClaimed(
  deps: UndoDeps,
  repos: Repositories,
  resolved: Resolved,
  run: Run,
  resumed: boolean,
  options: {
    signal?: AbortSignal | undefined;
    onProgress?: (progress: UndoProgress) => void;
  },
): Promise<UndoOutcome> {
  const now = deps.now ?? (() => new Date());
  const { undo } = repos;
  const states = resumed ? await undo.accountStates(run.id) : new Map<string, 'started' | 'done'>();
  const all = await undo.accountsOf(resolved.scope);
  const todo = all.filter((a) => states.get(undoAccountKey(a)) !== 'done');
  let counts: UndoCounts = { ...NO_COUNTS, ...run.counts };
  const fields: Record<string, FieldCounts> = {};
  const remarks = [...resolved.remarks];
  let pending = 0;
  let doneNow = 0;
  let interrupted = false;
  options.onProgress?.({ done: all.length - todo.length, total: all.length, counts });
  let busyAccounts = 0;
  for await (const { connector, plans, busy, release } of batchesOf(
    deps,
    repos,
    resolved.scope,
    todo,
    `undo:${run.id}`,
    resolved.keepFields,
  )) {
    busyAccounts += busy.length;
    pending += busy.length;
    const started = (a: UndoAccount) => states.get(undoAccountKey(a)) === 'started';
    const first = plans[0];
    const recorded =
      first && plans.some(started)
        ? await undo.restoredBy(
            run.id,
            first.crm,
            first.tenant,
            plans.filter(started).map((p) => p.accountId),
          )
        : new Set<string>();
    const working = plans.filter(hasWork);
    await undo.markStarted(run.id, working);
    const applied = await applyBatch(connector, working, deps.retry ?? {});
    const record = recordOf(
      run.id,
      plans,
      applied,
      { started, recorded: (a, field) => recorded.has(`${a.accountId}\u0000${field}`) },
      now(),
    );
    counts = addCounts(counts, record.counts);
    pending += plans.length - record.done.length;
    doneNow += record.done.length;
    for (const [name, n] of Object.entries(record.byField)) {
      const sum = fields[name] ?? { ...NO_FIELD_COUNTS };
      fields[name] = {
        restore: sum.restore + n.restore,
        unchanged: sum.unchanged + n.unchanged,
        skip: sum.skip + n.skip,
        ours: sum.ours + n.ours,
      };
    }
    await undo.recordBatch(run.id, {
      ...record,
      counts: { ...counts },
      outcomes: outcomesAfter(plans, record.changed),
    });
    const stale = await refreshLedgers(deps.ledgers, plans, record.changed);
    await release();
    if (stale) remarks.push(stale);
    options.onProgress?.({ done: all.length - todo.length + doneNow, total: all.length, counts });
    if (options.signal?.aborted) {
      interrupted = true;
      break;
    }
  }
  if (busyAccounts)
    remarks.push(
      `${busyAccounts} account${busyAccounts === 1 ? ' was' : 's were'} being enriched the whole time: run the same undo again for ${busyAccounts === 1 ? 'it' : 'them'}`,
    );
  // Finished only once every account is: otherwise the same undo resumes this run.
  if (!interrupted && pending === 0) await undo.finish(run.id, { ...counts }, now());
  const kept: KeptValue[] = await undo.keptBy(run.id, KEPT_SHOWN);
  return {
    runId: run.id,
    what: resolved.what,
    remarks,
    resumed,
    interrupted,
    total: all.length,
    pending,
    counts,
    fields,
    kept,
  };
}

/**
 * Drops what Redis remembers of the accounts' notes (asked of the CRM on next use) and moves each
 * account to the buyer its restored fields name. A failure is reported, not thrown: the CRM and the
 * history already hold the undo.
 */
async function refreshLedgers(
  ledgers: UndoLedgers | undefined,
  plans: readonly AccountPlan[],
  changed: ReturnType<typeof recordOf>['changed'],
): Promise<string | undefined> {
  if (!ledgers) return undefined;
  try {
    for (const { account, fields, noteKeys } of changed) {
      if (noteKeys.length) await ledgers.forgetNotes(account, noteKeys);
      if (!(P.buyerId in fields) && !(P.status in fields)) continue;
      const held = plans.find((p) => p.accountId === account.accountId)?.held ?? {};
      const after = (f: string) => (f in fields ? fields[f] : held[f]) ?? null;
      await ledgers.recordMatch(account, after(P.status) === 'enriched' ? after(P.buyerId) : null);
    }
    return undefined;
  } catch (err) {
    return `could not update the Redis caches (they catch up at the accounts' next enrichment): ${err instanceof Error ? err.message : String(err)}`;
  }
}
