// What the digest tests share: a HubSpot emulator with a connector that records the drafts it is given
// (and passes them on for real), sandbox rows as the digest should see them, and Redis cleanup.
import type { Redis } from 'ioredis';
import type { CrmConnector, NoteDraft } from '../../connectors/types.ts';
import type { SandboxDataset, SandboxRow } from '../../emulators/buyer-intel/data/dataset.ts';
import type { DigestStateStore } from '../../src/digest/deps.ts';
import { Store } from '../../src/store/store.ts';

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
