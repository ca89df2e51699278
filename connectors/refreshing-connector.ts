// A connector whose credentials can expire: on a 401 (the failure's status, not its class) it asks for a new access token once,
// rebuilds the inner connector with it and repeats the call. SDK clients keep their token inside, so
// a new inner connector is simpler and safer than mutating one.
import { failureFacts } from '../src/shared/errors.ts';
import type { CrmConnector } from './types.ts';

export function refreshingConnector(options: {
  initialToken: string;
  build: (accessToken: string) => CrmConnector;
  /** A newer token: stored by another worker, or refreshed now. */
  refresh: (staleToken: string) => Promise<string>;
}): CrmConnector {
  let token = options.initialToken;
  let inner = options.build(token);

  async function withRefresh<R>(call: (c: CrmConnector) => Promise<R>): Promise<R> {
    const used = token;
    try {
      return await call(inner);
    } catch (err) {
      if (failureFacts(err)?.status !== 401) throw err;
      if (token === used) {
        token = await options.refresh(used);
        inner = options.build(token);
      }
      return call(inner);
    }
  }

  return {
    kind: inner.kind,
    tenant: inner.tenant,
    maxUpdateBatch: inner.maxUpdateBatch,
    maxNoteBatch: inner.maxNoteBatch,
    maxNoteRemovalBatch: inner.maxNoteRemovalBatch,
    maxReadBatch: inner.maxReadBatch,
    maxNoteKeyBatch: inner.maxNoteKeyBatch,
    maxTaskStateBatch: inner.maxTaskStateBatch,
    ...(inner.fieldName ? { fieldName: (field: string) => inner.fieldName?.(field) ?? field } : {}),
    // Where a record opens does not depend on the token: the inner connector of the moment says.
    ...(inner.recordUrl ? { recordUrl: (id: string) => inner.recordUrl?.(id) ?? '' } : {}),
    ...(inner.prepareRecordUrls
      ? { prepareRecordUrls: () => inner.prepareRecordUrls?.() ?? Promise.resolve() }
      : {}),
    getAccount: (id, fields) => withRefresh((c) => c.getAccount(id, fields)),
    getAccounts: (ids, fields) => withRefresh((c) => c.getAccounts(ids, fields)),
    listAccounts: (fields, page) => withRefresh((c) => c.listAccounts(fields, page)),
    updateAccounts: (updates) => withRefresh((c) => c.updateAccounts(updates)),
    existingNoteKeys: (id) => withRefresh((c) => c.existingNoteKeys(id)),
    existingNoteKeysOf: (ids) => withRefresh((c) => c.existingNoteKeysOf(ids)),
    ...(inner.existingNotesOf
      ? {
          existingNotesOf: (ids: readonly string[]) =>
            withRefresh(async (c) => (await c.existingNotesOf?.(ids)) ?? new Map()),
        }
      : {}),
    createNotes: (notes) => withRefresh((c) => c.createNotes(notes)),
    removeNotes: (refs) => withRefresh((c) => c.removeNotes(refs)),
    listOwners: () => withRefresh((c) => c.listOwners()),
    taskStates: (ids) => withRefresh((c) => c.taskStates(ids)),
    ensureFields: (fields) => withRefresh((c) => c.ensureFields(fields)),
  };
}
