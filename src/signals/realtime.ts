// The job of one bridge row event: read the row, find the CRM accounts enriched with its buyer, and put
// one note on each — deduped exactly like the enrichment pipeline (same key from signalNoteKey; our
// ledger first, then the CRM as the source of truth; record what was written), so a row the pipeline
// already noted, or a re-run of this job, never becomes a second note. A signal of a type configured
// as a follow-up becomes a task for the account's owner instead (src/follow-ups/), read with the account.
import {
  AccountNotFoundError,
  type AccountRef,
  type CrmConnector,
  type CrmKind,
  type NoteDraft,
  type NoteResult,
} from '../../connectors/types.ts';
import type { SignalJobData } from '../../queues/signal-queue.ts';
import { followUpOf, signalRefOf, wantsTask } from '../follow-ups/drafts.ts';
import type { FollowUpSettings } from '../follow-ups/settings.ts';
import { PermanentWriteError } from '../write/errors.ts';
import type { WriteOrigin } from '../write/journal.ts';
import type { Ledgers } from '../write/ledgers.ts';
import { signalToNote } from '../write/signal-notes.ts';
import type { AccountLock } from './account-lock.ts';
import { bridgeSummary, findRow, type RowLookupClient, type RowLookupOptions } from './row-lookup.ts';

export interface RealtimeDeps {
  buyerIntel: RowLookupClient;
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
  ledgers: Pick<Ledgers, 'accountsOfBuyer' | 'knownNotes' | 'notesPending' | 'recordNotes'>;
  /** The service's batched note writer (as the pipeline's, recorded); default: the connector's createNotes. */
  createNote?: (crm: CrmKind, tenant: string, note: NoteDraft, origin?: WriteOrigin) => Promise<NoteResult>;
  /** Serializes note writing with the enrich worker per account (see account-lock.ts). */
  lock?: AccountLock;
  /** Only rows of these bridges become notes; default: every bridge the provider sends. */
  bridgeIds?: readonly string[];
  rowLookup?: RowLookupOptions;
  /** Which signals become a task for the account's owner; default none. */
  followUps?: FollowUpSettings;
  now?: () => Date;
}

export type AccountOutcome = 'created' | 'already_present' | 'account_gone';

export interface RowEventResult {
  rowId: string;
  bridgeId: string;
  buyerId: string | null;
  /** `no_buyer`: the row names none; `not_enriched`: no account of ours has that buyer. */
  status: 'noted' | 'no_buyer' | 'not_enriched' | 'bridge_ignored';
  accounts: (AccountRef & { outcome: AccountOutcome; noteKey: string })[];
}

export async function processRowEvent(deps: RealtimeDeps, event: SignalJobData): Promise<RowEventResult> {
  const base = { rowId: event.rowId, bridgeId: event.bridgeId, accounts: [] };
  if (deps.bridgeIds && !deps.bridgeIds.includes(event.bridgeId))
    return { ...base, buyerId: null, status: 'bridge_ignored' };

  const row = await findRow(deps.buyerIntel, event, deps.rowLookup);
  const buyerId = row.buyerId ?? null;
  if (!buyerId) return { ...base, buyerId, status: 'no_buyer' };
  const accounts = await deps.ledgers.accountsOfBuyer(buyerId);
  if (!accounts.length) return { ...base, buyerId, status: 'not_enriched' };

  const signal = { bridge: await bridgeSummary(deps.buyerIntel, event.bridgeId), row };
  const results: RowEventResult['accounts'] = [];
  const failures: { message: string; permanent: boolean }[] = [];
  for (const account of accounts) {
    const note = signalToNote(account.accountId, buyerId, signal);
    const run = async () => {
      const settings = deps.followUps;
      let draft = note;
      if (settings && wantsTask(settings, signal)) {
        const connector = deps.connectorFor(account.crm, account.tenant);
        let ownerId: string | undefined;
        try {
          ({ ownerId } = await connector.getAccount(account.accountId, []));
        } catch (err) {
          if (err instanceof AccountNotFoundError) return 'account_gone' as const;
          throw err;
        }
        const now = (deps.now ?? (() => new Date()))();
        draft = followUpOf(note, signal, { crm: account.crm, ownerId }, settings, now);
      }
      return noteOnce(deps, account, draft, buyerId, signalRefOf(signal));
    };
    try {
      const outcome = deps.lock ? await deps.lock(account, run) : await run();
      results.push({ ...account, outcome, noteKey: note.dedupeKey });
    } catch (err) {
      // One account's failure must not keep the others from their note; the retry skips the done ones.
      if (err instanceof WriteFailed) failures.push(err.failure);
      else failures.push({ message: err instanceof Error ? err.message : String(err), permanent: false });
    }
  }
  if (failures.length) {
    const message = `row ${row.rowId}: ${failures.length} of ${accounts.length} notes failed: ${failures[0]?.message}`;
    throw failures.every((f) => f.permanent) ? new PermanentWriteError(message) : new Error(message);
  }
  return { ...base, buyerId, status: 'noted', accounts: results };
}

class WriteFailed extends Error {
  readonly failure: { message: string; permanent: boolean };
  constructor(failure: { message: string; permanent: boolean }) {
    super(failure.message);
    this.failure = failure;
  }
}

async function noteOnce(
  deps: RealtimeDeps,
  account: AccountRef,
  note: NoteDraft,
  buyerId: string,
  signal: WriteOrigin['signal'],
): Promise<AccountOutcome> {
  const key = note.dedupeKey;
  if ((await deps.ledgers.knownNotes(account, [key])).has(key)) return 'already_present';
  const connector = deps.connectorFor(account.crm, account.tenant);
  let onCrm: Set<string>;
  try {
    onCrm = await connector.existingNoteKeys(account.accountId);
  } catch (err) {
    // The account was deleted since it was enriched: nothing to note, and retrying cannot help.
    if (err instanceof AccountNotFoundError) return 'account_gone';
    throw err;
  }
  if (onCrm.has(key)) {
    await deps.ledgers.recordNotes(account, [key]);
    return 'already_present';
  }
  // Write-ahead, as an enrichment does: a crash before the note is recorded sends the next job to the CRM.
  await deps.ledgers.notesPending(account, [key]);
  const result = deps.createNote
    ? await deps.createNote(account.crm, account.tenant, note, { trigger: 'signal', buyerId, signal })
    : (await connector.createNotes([note]))[0];
  if (!result)
    throw new WriteFailed({ message: 'the CRM returned no result for the note', permanent: false });
  if (!result.ok) {
    throw new WriteFailed({
      message: `note on ${account.crm} account ${account.accountId}: ${result.error.message}`,
      permanent: result.error.permanent,
    });
  }
  await deps.ledgers.recordNotes(account, [key]);
  return 'created';
}
