// Writes from concurrent jobs share CRM calls: field updates and notes for one tenant go through the
// batch channels `fields:<crm>:<tenant>` and `notes:<crm>:<tenant>` (src/batch/): in the service they
// are shared by every worker process, so one call carries every worker's writes. `drain` sends what
// waits (shutdown).
//
// What a batch is about to write goes on the record (journal.ts) first, pending, in one statement, and
// its answers settle it in one more, before any job hears back, by whichever process sends the batch
// (the store is shared): no value or note of ours reaches the CRM without its row, a write that cannot
// be recorded is not sent (its jobs retry, as for any transient failure), and the history never costs a
// job a round trip of its own. Rows a CRM call left pending (it failed as a whole, or the store went
// away before the answer was recorded) are settled against what the CRM holds
// (src/undo/settle-pending.ts).
//
// A note is sent only by the call that claims it (note-claims.ts): two attempts of one job (a killed
// worker's, whose notes still wait in a shared batch, and the retry's) never both create it.
import { randomUUID } from 'node:crypto';
import type {
  AccountUpdate,
  CrmConnector,
  CrmKind,
  NoteDraft,
  NoteResult,
  UpdateResult,
} from '../../connectors/types.ts';
import type { BatchChannel, BatchChannels, ChannelSpec } from '../batch/channel.ts';
import { localChannels } from '../batch/local.ts';
import { IntegrationError } from '../shared/errors.ts';
import { retrying } from '../shared/retry.ts';
import { storableText } from '../shared/text.ts';
import {
  fieldEntriesOf,
  noteEntryOf,
  pendingNoteOf,
  type WriteContext,
  type WriteJournal,
  type WriteOrigin,
} from './journal.ts';
import type { NoteClaims } from './note-claims.ts';

export interface BatchedWrites {
  writeAccount(
    crm: CrmKind,
    tenant: string,
    update: AccountUpdate,
    context?: WriteContext,
  ): Promise<UpdateResult>;
  createNote(crm: CrmKind, tenant: string, note: NoteDraft, origin?: WriteOrigin): Promise<NoteResult>;
  drain(): Promise<void>;
}

/** Tries to record a few times (a database blip), then reports and lets the CRM's answers stand. */
const RECORD_RETRIES = 3;
const RECORD_BACKOFF = { baseMs: 100, maxMs: 1_000 };

export function batchedWrites(options: {
  connector: (crm: CrmKind, tenant: string) => CrmConnector;
  /** Where batches form; default: this process's own (local) channels with `maxWaitMs` linger. */
  channels?: BatchChannels | undefined;
  /** Linger of the default local channels (ms); ignored with `channels`. Default 0. */
  maxWaitMs?: number | undefined;
  journal?: WriteJournal | undefined;
  /** Across processes, one create of a note at a time (note-claims.ts); without it, none is refused. */
  noteClaims?: NoteClaims | undefined;
  /**
   * The CRM's answers could not be recorded: the CRM already has the writes and failing their jobs
   * would not record them either, so it is reported; their pending rows are settled later against the
   * CRM (without a write-ahead journal, the writes are off the record).
   */
  onJournalError?: ((err: unknown, what: string) => void) | undefined;
  now?: () => Date;
}): BatchedWrites {
  const now = options.now ?? (() => new Date());
  const channels = options.channels ?? localChannels({ maxWaitMs: options.maxWaitMs ?? 0 });
  const opened = new Map<string, BatchChannel<never, unknown>>();
  function channelFor<I, O>(
    kind: string,
    crm: CrmKind,
    tenant: string,
    make: (c: CrmConnector) => ChannelSpec<I, O>,
  ): BatchChannel<I, O> {
    const key = `${kind}:${crm}:${tenant}`;
    let channel = opened.get(key) as BatchChannel<I, O> | undefined;
    if (!channel) {
      channel = channels(key, make(options.connector(crm, tenant)));
      opened.set(key, channel as unknown as BatchChannel<never, unknown>);
    }
    return channel;
  }

  async function record(what: string, write: () => Promise<void>): Promise<void> {
    try {
      await retrying(write, { tries: RECORD_RETRIES + 1, backoff: RECORD_BACKOFF });
    } catch (err) {
      options.onJournalError?.(err, what);
    }
  }

  /** Records before a CRM call; a failure is transient: the call is not made, and its jobs retry. */
  async function writeAhead<T>(recordPending: () => Promise<T>): Promise<T> {
    try {
      return await recordPending();
    } catch (err) {
      throw new IntegrationError('the write history cannot be recorded: the CRM write is not sent', {
        permanent: false,
        cause: err,
      });
    }
  }

  /** The batch's pending rows, per item (its fields' ids); a failure is transient: nothing is sent. */
  async function pendingRows(
    journal: WriteJournal,
    crm: CrmKind,
    tenant: string,
    items: readonly { update: AccountUpdate; context?: WriteContext | undefined }[],
    at: Date,
  ): Promise<string[][]> {
    const per = items.map((item) =>
      fieldEntriesOf(
        crm,
        tenant,
        item.update,
        { accountId: item.update.accountId, ok: true },
        item.context,
        at,
      ),
    );
    const ids = await writeAhead(async () => (await journal.recordPendingFieldWrites?.(per.flat())) ?? []);
    let at0 = 0;
    return per.map((entries) => {
      const mine = ids.slice(at0, at0 + entries.length);
      at0 += entries.length;
      return mine;
    });
  }

  return {
    writeAccount: (crm, tenant, update, context) =>
      channelFor(
        'fields',
        crm,
        tenant,
        (c): ChannelSpec<{ update: AccountUpdate; context?: WriteContext | undefined }, UpdateResult> => ({
          maxBatch: c.maxUpdateBatch,
          send: async (items) => {
            const journal = options.journal;
            // What the batch is about to write goes on the record first: a write that cannot be
            // recorded is not sent (its jobs retry), so no value of ours is in the CRM without its row.
            const pending = journal?.recordPendingFieldWrites
              ? await pendingRows(journal, crm, tenant, items, now())
              : undefined;
            // A call that fails leaves its rows pending: whether the CRM took them is settled later
            // against what it holds (settlePendingWrites).
            const results = await c.updateAccounts(items.map((i) => i.update));
            if (journal) {
              if (pending && journal.settleFieldWrites) {
                const settle = journal.settleFieldWrites.bind(journal);
                const settled = pending.flatMap((ids, i) => {
                  const result = results[i];
                  if (!result) return [];
                  const error = result.ok
                    ? null
                    : `${result.error.status ? `${result.error.status}: ` : ''}${result.error.message}`.slice(
                        0,
                        500,
                      );
                  return ids.map((id) => ({
                    id,
                    result: result.ok ? ('ok' as const) : ('error' as const),
                    error,
                  }));
                });
                if (settled.length) await record(`${settled.length} field writes`, () => settle(settled));
              } else {
                const at = now();
                const entries = items.flatMap((item, i) => {
                  const result = results[i];
                  return result ? fieldEntriesOf(crm, tenant, item.update, result, item.context, at) : [];
                });
                if (entries.length)
                  await record(`${entries.length} field writes`, () => journal.recordFieldWrites(entries));
              }
            }
            return results;
          },
        }),
      ).submit({
        update: {
          accountId: update.accountId,
          fields: Object.fromEntries(
            Object.entries(update.fields).map(([k, v]) => [k, v === null ? null : storableText(v)]),
          ),
        },
        context,
      }),
    createNote: (crm, tenant, note, origin) =>
      channelFor(
        'notes',
        crm,
        tenant,
        (c): ChannelSpec<{ note: NoteDraft; origin?: WriteOrigin | undefined }, NoteResult> => ({
          maxBatch: c.maxNoteBatch,
          send: async (items) => {
            // Only the notes this call claims are sent (note-claims.ts): two attempts of one job never
            // both create one; a note another call holds answers as refused for now, and its job retries.
            const claim = await options.noteClaims?.take(
              crm,
              tenant,
              items.map((i) => i.note),
              randomUUID(),
            );
            const sent = claim ? items.filter((_, i) => claim.held[i]) : items;
            const journal = options.journal;
            const recordPending = journal?.recordPendingNotes?.bind(journal);
            let pending: string[] | undefined;
            let made: NoteResult[];
            try {
              // What the call is about to create goes on the record first (write-ahead).
              pending =
                recordPending && sent.length
                  ? await writeAhead(() =>
                      recordPending(sent.map((i) => pendingNoteOf(crm, tenant, i.note, i.origin, now()))),
                    )
                  : undefined;
              made = sent.length ? await c.createNotes(sent.map((i) => i.note)) : [];
            } catch (err) {
              await claim?.abandon().catch(() => {});
              throw err;
            }
            // The CRM answered: that goes on the record whatever Redis does (unsettled claims lapse).
            await claim
              ?.settle(
                made.flatMap((r, i) => (r.ok && sent[i] ? [sent[i].note] : [])),
                made.flatMap((r, i) => (!r.ok && sent[i] ? [sent[i].note] : [])),
              )
              .catch(() => {});
            const at = now();
            const entries = sent.flatMap((item, i) => {
              const result = made[i];
              return (result && noteEntryOf(crm, tenant, item.note, result, item.origin, at)) ?? [];
            });
            if (pending && journal?.settleNotes) {
              const settle = journal.settleNotes.bind(journal);
              const settled = pending.flatMap((id, i) => {
                const result = made[i];
                return result ? [{ id, noteId: result.ok ? result.noteId : null }] : [];
              });
              const followUps = entries.filter((e) => e.followUp);
              if (settled.length) await record(`${settled.length} notes`, () => settle(settled, followUps));
            } else if (journal && entries.length) {
              await record(`${entries.length} notes`, () => journal.recordNotes(entries));
            }
            const results = claim ? answersWithRefusals(items, claim.held, made) : made;
            return results;
          },
        }),
      ).submit({
        note: { ...note, title: storableText(note.title), body: storableText(note.body) },
        origin,
      }),
    drain: async () => {
      await Promise.all([...opened.values()].map((c) => c.drain()));
    },
  };
}

/**
 * The answers of a call in the order of its items: a note another create holds is refused for now
 * (transient: its job retries, and the retry asks the CRM whether the note is there).
 */
function answersWithRefusals(
  items: readonly { note: NoteDraft }[],
  held: readonly boolean[],
  made: readonly NoteResult[],
): NoteResult[] {
  let next = 0;
  return items.map(({ note }, i) =>
    held[i]
      ? (made[next++] ?? missing(note))
      : {
          dedupeKey: note.dedupeKey,
          ok: false,
          error: {
            status: undefined,
            message: `note ${note.dedupeKey} is being created by another job; checked on the CRM again`,
            permanent: false,
          },
        },
  );
}

const missing = (note: NoteDraft): NoteResult => ({
  dedupeKey: note.dedupeKey,
  ok: false,
  error: { status: undefined, message: 'the CRM gave no answer for this note', permanent: false },
});
