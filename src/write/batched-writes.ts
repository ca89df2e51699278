// Writes from concurrent jobs share CRM calls: field updates and notes for one tenant wait up to
// `maxWaitMs` to fill a batch of the connector's size. `drain` flushes what waits (shutdown).
import type {
  AccountUpdate,
  CrmConnector,
  CrmKind,
  NoteDraft,
  NoteResult,
  UpdateResult,
} from '../../connectors/types.ts';
import { Batcher } from './batcher.ts';

export interface BatchedWrites {
  writeAccount(crm: CrmKind, tenant: string, update: AccountUpdate): Promise<UpdateResult>;
  createNote(crm: CrmKind, tenant: string, note: NoteDraft): Promise<NoteResult>;
  drain(): Promise<void>;
}

export function batchedWrites(options: {
  connector: (crm: CrmKind, tenant: string) => CrmConnector;
  maxWaitMs: number;
}): BatchedWrites {
  const batchers = new Map<string, Batcher<never, unknown>>();
  function batcherFor<I, O>(
    kind: string,
    crm: CrmKind,
    tenant: string,
    make: (c: CrmConnector) => Batcher<I, O>,
  ): Batcher<I, O> {
    const key = `${kind}:${crm}:${tenant}`;
    let batcher = batchers.get(key) as Batcher<I, O> | undefined;
    if (!batcher) {
      batcher = make(options.connector(crm, tenant));
      batchers.set(key, batcher as unknown as Batcher<never, unknown>);
    }
    return batcher;
  }
  return {
    writeAccount: (crm, tenant, update) =>
      batcherFor(
        'fields',
        crm,
        tenant,
        (c) =>
          new Batcher<AccountUpdate, UpdateResult>({
            maxBatch: c.maxUpdateBatch,
            maxWaitMs: options.maxWaitMs,
            send: (items) => c.updateAccounts(items),
          }),
      ).submit(update),
    createNote: (crm, tenant, note) =>
      batcherFor(
        'notes',
        crm,
        tenant,
        (c) =>
          new Batcher<NoteDraft, NoteResult>({
            maxBatch: c.maxNoteBatch,
            maxWaitMs: options.maxWaitMs,
            send: (items) => c.createNotes(items),
          }),
      ).submit(note),
    drain: async () => {
      await Promise.all([...batchers.values()].map((b) => b.drain()));
    },
  };
}
