// An in-memory CRM for the signal tests: notes per account, with the dedupe key the connector would
// find in the CRM. Only what the real-time path uses is implemented.
import {
  AccountNotFoundError,
  type CrmConnector,
  type CrmKind,
  type NoteDraft,
  type NoteResult,
} from '../../connectors/types.ts';

export class FakeCrm {
  readonly notes = new Map<string, NoteDraft[]>();
  readonly deleted = new Set<string>();
  /** Each account's owner, as a person set it in the CRM. */
  readonly owners = new Map<string, string>();
  createCalls = 0;

  notesOf(accountId: string): NoteDraft[] {
    return this.notes.get(accountId) ?? [];
  }

  connector(kind: CrmKind, tenant: string): CrmConnector {
    const unsupported = () => Promise.reject(new Error('not used by the real-time path'));
    return {
      kind,
      tenant,
      maxUpdateBatch: 10,
      maxNoteBatch: 10,
      maxNoteRemovalBatch: 10,
      maxReadBatch: 10,
      maxNoteKeyBatch: 10,
      maxTaskStateBatch: 10,
      getAccount: async (accountId) => {
        if (this.deleted.has(accountId)) throw new AccountNotFoundError(accountId);
        const ownerId = this.owners.get(accountId);
        return {
          id: accountId,
          name: null,
          state: null,
          city: null,
          website: null,
          fields: {},
          ...(ownerId ? { ownerId } : {}),
        };
      },
      getAccounts: unsupported,
      listAccounts: unsupported,
      updateAccounts: unsupported,
      ensureFields: unsupported,
      removeNotes: unsupported,
      listOwners: unsupported,
      existingNoteKeysOf: unsupported,
      taskStates: unsupported,
      existingNoteKeys: async (accountId) => {
        if (this.deleted.has(accountId)) throw new AccountNotFoundError(accountId);
        return new Set(this.notesOf(accountId).map((n) => n.dedupeKey));
      },
      createNotes: async (drafts): Promise<NoteResult[]> => {
        this.createCalls++;
        return drafts.map((d) => {
          this.notes.set(d.accountId, [...this.notesOf(d.accountId), d]);
          return { dedupeKey: d.dedupeKey, ok: true, noteId: `note-${this.createCalls}` };
        });
      },
    };
  }
}
