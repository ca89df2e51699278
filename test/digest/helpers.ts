// What the digest tests share: a HubSpot emulator with a connector that records the drafts it is given
// (and passes them on for real), sandbox rows as the digest should see them, and Redis cleanup.
import type { Redis } from 'ioredis';
import type { CrmConnector, NoteDraft } from '../../connectors/types.ts';
import type { SandboxDataset, SandboxRow } from '../../emulators/buyer-intel/data/dataset.ts';
import type { DigestStateStore } from '../../src/digest/deps.ts';
import { Store } from '../../src/store/store.ts';
import { sharedDataset } from '../helpers/buyer-intel-sandbox.ts';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const DAY = 86_400_000;

/** Delegates to `inner`, recording every note draft sent; `afterCreate` runs after a successful call. */
export function recording(
  inner: CrmConnector,
  sent: NoteDraft[],
  afterCreate?: (notes: readonly NoteDraft[]) => void,
): CrmConnector {
  return {
    kind: inner.kind,
    tenant: inner.tenant,
    maxUpdateBatch: inner.maxUpdateBatch,
    maxNoteBatch: inner.maxNoteBatch,
    maxNoteRemovalBatch: inner.maxNoteRemovalBatch,
    maxReadBatch: inner.maxReadBatch,
    maxNoteKeyBatch: inner.maxNoteKeyBatch,
    maxTaskStateBatch: inner.maxTaskStateBatch,
    taskStates: (ids) => inner.taskStates(ids),
    getAccount: (id, fields) => inner.getAccount(id, fields),
    getAccounts: (ids, fields) => inner.getAccounts(ids, fields),
    listAccounts: (fields, page) => inner.listAccounts(fields, page),
    updateAccounts: (updates) => inner.updateAccounts(updates),
    existingNoteKeys: (id) => inner.existingNoteKeys(id),
    existingNoteKeysOf: (ids) => inner.existingNoteKeysOf(ids),
    ensureFields: (fields) => inner.ensureFields(fields),
    removeNotes: (refs) => inner.removeNotes(refs),
    listOwners: () => inner.listOwners(),
    async createNotes(notes) {
      sent.push(...notes);
      const results = await inner.createNotes(notes);
      afterCreate?.(notes);
      return results;
    },
  };
}

/**
 * The rows the buyer feed returns by default (status New) that reached it in (since, until], in the
 * sandbox's Hotness order (hotness, then signal date, descending).
 */
export function expectedRows(
  dataset: SandboxDataset,
  buyerIds: ReadonlySet<string> | string,
  since: number,
  until: number,
): SandboxRow[] {
  const rows =
    typeof buyerIds === 'string'
      ? (dataset.rowsByBuyer.get(buyerIds) ?? [])
      : dataset.rows.filter((r) => r.buyerId !== null && buyerIds.has(r.buyerId));
  return rows
    .filter((r) => {
      const at = Date.parse(r.createdAt);
      return r.userStatus === 'New' && at > since && at <= until;
    })
    .sort((a, b) => b.hotness - a.hotness || b.signalDate.localeCompare(a.signalDate));
}

/** A sandbox buyer with the rows each weekly window should list: (s1 - 7 days, s1] and (s1, s2]. */
export interface WindowedBuyer {
  buyerId: string;
  w1: SandboxRow[];
  w2: SandboxRow[];
  /** Every row of the buyer, in any window. */
  all: number;
}

/**
 * Picks sandbox buyers for a digest scenario by what their two weekly windows hold (the runs at s1 and
 * s2 = s1 + 7 days); each buyer is picked once, so two accounts never share one.
 */
export function buyerPicker(s1: number, s2: number): (test: (b: WindowedBuyer) => boolean) => WindowedBuyer {
  const dataset = sharedDataset();
  const pool: WindowedBuyer[] = dataset.buyers.map((b) => ({
    buyerId: b.id,
    w1: expectedRows(dataset, b.id, s1 - 7 * DAY, s1),
    w2: expectedRows(dataset, b.id, s1, s2),
    all: dataset.rowsByBuyer.get(b.id)?.length ?? 0,
  }));
  const taken = new Set<string>();
  return (test) => {
    const picked = pool.find((b) => test(b) && !taken.has(b.buyerId));
    if (!picked) throw new Error('no sandbox buyer fits');
    taken.add(picked.buyerId);
    return picked;
  };
}

/** Monday 12:00 UTC of the week holding `at`. */
export function mondayNoon(at: number): number {
  const d = new Date(at);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  return midnight - ((d.getUTCDay() + 6) % 7) * DAY + 12 * 3_600_000;
}

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
}

/** The digest state on an embedded database of the test file's own (src/store/digest-state.ts). */
export function databaseState(): { state: DigestStateStore; store: Store } {
  const store = new Store({ pgliteDir: 'memory' });
  return {
    store,
    state: {
      get: async (scope) => (await store.open()).digests.get(scope),
      update: async (scope, set, drop) => (await store.open()).digests.update(scope, set, drop),
      claim: async (scope, field, value) => (await store.open()).digests.claim(scope, field, value),
    },
  };
}
