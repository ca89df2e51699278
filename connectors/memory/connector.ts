// The CrmConnector over a MemoryCrmStore: the same contract as HubSpot and Salesforce, batch sizes
// of 100, per-record results, keyset pages, notes keyed for dedupe and removable, ids in our default id fields.
import { DEFAULT_ID_FIELD_NAMES, idFieldList, readIds } from '../account-ids.ts';
import { type RemovalOutcome, removeNotesOnce } from '../note-removal.ts';
import { batchIds } from '../read-batch.ts';
import { AccountNotFoundError, type CrmConnector, type FieldDefinition } from '../types.ts';
import type { MemoryAccount, MemoryCrmStore } from './store.ts';

export const MEMORY_BATCH_LIMIT = 100;
/** Distinct from the word "memory" (Redis INFO sections and the like), so the core's check finds it. */
export const MEMORY_CRM = 'memory-crm';

const ID_FIELDS = idFieldList(DEFAULT_ID_FIELD_NAMES, () => true);

function snapshot(account: MemoryAccount, fieldNames: readonly string[]) {
  const ids = readIds(ID_FIELDS, (name) => account.fields.get(name));
  return {
    id: account.id,
    name: account.name,
    state: account.state,
    city: account.city,
    website: account.website,
    ...(account.ownerId ? { ownerId: account.ownerId } : {}),
    fields: Object.fromEntries(fieldNames.map((f) => [f, account.fields.get(f) ?? null])),
    ...(ids ? { ids } : {}),
    ...(account.ownerId ? { ownerId: account.ownerId } : {}),
  };
}

/** Why a value does not fit the field, or undefined when it does. */
function misfit(definition: FieldDefinition | undefined, value: string | null): string | undefined {
  if (!definition) return 'is not a field of this CRM (run setup)';
  if (value === null || value === '') return undefined;
  if (definition.type === 'number' && !/^-?\d+(\.\d+)?$/.test(value)) return 'must be a number';
  if (
    definition.type === 'enumeration' &&
    definition.options &&
    !definition.options.some((o) => o.value === value)
  )
    return 'is not one of the field’s options';
  return undefined;
}

export function createMemoryConnector(store: MemoryCrmStore): CrmConnector {
  const accountOf = (id: string) => {
    const account = store.accounts.get(id);
    if (!account) throw new AccountNotFoundError(id);
    return account;
  };
  return {
    kind: MEMORY_CRM,
    tenant: store.workspace,
    maxUpdateBatch: MEMORY_BATCH_LIMIT,
    maxNoteBatch: MEMORY_BATCH_LIMIT,
    maxNoteRemovalBatch: MEMORY_BATCH_LIMIT,
    idFields: ID_FIELDS,
    maxReadBatch: MEMORY_BATCH_LIMIT,
    maxNoteKeyBatch: MEMORY_BATCH_LIMIT,
    maxTaskStateBatch: MEMORY_BATCH_LIMIT,
    async getAccount(accountId, fieldNames) {
      return snapshot(accountOf(accountId), fieldNames);
    },
    async getAccounts(accountIds, fieldNames) {
      return batchIds(accountIds, MEMORY_BATCH_LIMIT).flatMap((id) => {
        const account = store.accounts.get(id);
        return account ? [snapshot(account, fieldNames)] : [];
      });
    },
    async listAccounts(fieldNames, page = {}) {
      const limit = Math.min(Math.max(1, page.limit ?? MEMORY_BATCH_LIMIT), MEMORY_BATCH_LIMIT);
      const after = page.after ?? '';
      const ids = [...store.accounts.keys()].filter((id) => id > after).sort();
      const taken = ids.slice(0, limit);
      const accounts = taken.map((id) => snapshot(accountOf(id), fieldNames));
      return { accounts, next: ids.length > limit ? (taken.at(-1) ?? null) : null };
    },
    async updateAccounts(updates) {
      return updates.map(({ accountId, fields }) => {
        const account = store.accounts.get(accountId);
        if (!account)
          return {
            accountId,
            ok: false as const,
            error: { status: 404, message: `account ${accountId} not found`, permanent: true },
          };
        for (const [name, value] of Object.entries(fields)) {
          const why = misfit(store.fields.get(name), value);
          if (why)
            return {
              accountId,
              ok: false as const,
              error: { status: 400, message: `${name} ${why}`, permanent: true },
            };
        }
        for (const [name, value] of Object.entries(fields))
          if (value === null || value === '') account.fields.delete(name);
          else account.fields.set(name, value);
        return { accountId, ok: true as const };
      });
    },
    async existingNoteKeys(accountId) {
      accountOf(accountId);
      return new Set(store.notesOf(accountId).map((n) => n.key));
    },
    async existingNoteKeysOf(accountIds) {
      const ids = batchIds(accountIds, MEMORY_BATCH_LIMIT, 'existingNoteKeysOf');
      return new Map(ids.map((id) => [id, [...new Set(store.notesOf(id).map((n) => n.key))]]));
    },
    async existingNotesOf(accountIds) {
      const ids = batchIds(accountIds, MEMORY_BATCH_LIMIT, 'existingNotesOf');
      return new Map(
        ids.map((id) => [id, store.notesOf(id).map((n) => ({ noteId: n.id, dedupeKey: n.key }))]),
      );
    },
    async createNotes(notes) {
      // One note per account and key, even when a batch names a key twice.
      const made = new Map<string, string>();
      return notes.map((note) => {
        if (!store.accounts.has(note.accountId))
          return {
            dedupeKey: note.dedupeKey,
            ok: false as const,
            error: { status: 404, message: `account ${note.accountId} not found`, permanent: true },
          };
        const slot = `${note.accountId}|${note.dedupeKey}`;
        const noteId =
          made.get(slot) ??
          store.addNote({
            accountId: note.accountId,
            key: note.dedupeKey,
            title: note.title,
            body: note.body,
            occurredAt: note.occurredAt,
            ...(note.task ? { task: { ...note.task, status: 'open' } } : {}),
          }).id;
        made.set(slot, noteId);
        return { dedupeKey: note.dedupeKey, ok: true as const, noteId };
      });
    },
    removeNotes(refs) {
      return removeNotesOnce(refs, MEMORY_BATCH_LIMIT, async (ids) =>
        ids.map((id): RemovalOutcome => {
          // As in a CRM, an id of anything but a note (an account's, say) removes nothing.
          if (!/^(note|task)\d+$/.test(id))
            return { status: 400, message: `${JSON.stringify(id)} is no note id`, permanent: true };
          return store.removeNote(id) ? 'removed' : 'already_gone';
        }),
      );
    },
    async listOwners() {
      return store.owners.map((o) => ({ ...o }));
    },
    async taskStates(noteIds) {
      batchIds(noteIds, MEMORY_BATCH_LIMIT, 'taskStates');
      return noteIds.map((noteId) => {
        const task = store.notes.find((n) => n.id === noteId)?.task;
        if (!task) return { noteId, state: 'deleted' as const, status: null };
        const state = task.status === 'completed' ? ('completed' as const) : ('open' as const);
        return { noteId, state, status: task.status };
      });
    },
    async ensureFields(fields) {
      const created: string[] = [];
      const existing: string[] = [];
      for (const field of fields) {
        if (store.fields.has(field.name)) existing.push(field.name);
        else {
          store.fields.set(field.name, field);
          created.push(field.name);
        }
      }
      return { created, existing };
    },
  };
}
