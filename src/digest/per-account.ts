// The per-account digest: for every matched account, the buyer's signals that reached the feed since the
// account's last digest, hottest first, as ONE note per account and period. Idempotent under retries,
// concurrent runs and crashes:
//   - the note's dedupe key is `digest:<buyerId>:<periodId>` and the CRM is asked (existingNoteKeys)
//     before writing, so a run after a crash between writing and recording writes nothing new;
//   - the database keeps per account `watermark` (end of the last digested window), `period` (the last period
//     whose digest is on the account: the fast path) and, while a write is in flight, `pendingPeriod` /
//     `pendingEnd` so that a recovered run advances the watermark to the window that note covered;
//   - the watermark moves only after the note is written (or when the window held nothing new).
import type { AccountRef, NoteDraft, NoteResult } from '../../connectors/types.ts';
import { failureFacts } from '../shared/errors.ts';
import {
  type DigestDeps,
  DigestIncompleteError,
  type DigestRunResult,
  emptyResult,
  inScope,
} from './deps.ts';
import { type Period, periodOf, periodUnitOf } from './period.ts';
import { digestBody, digestTitle, summarizeSignal } from './render.ts';
import type { PerAccountDigestSettings } from './settings.ts';
import { buyerFeeds, inWindow } from './signals.ts';

const DAY = 86_400_000;

export function digestNoteKey(buyerId: string, periodId: string): string {
  return `digest:${buyerId}:${periodId}`;
}

/** The account's scope in the digest state (src/store/digest-state.ts). */
export function accountStateKey(a: AccountRef): string {
  return `account:${a.crm}:${a.tenant}:${a.accountId}`;
}

export function perAccountPeriod(settings: PerAccountDigestSettings, at: Date): Period {
  return periodOf(at, settings.tz, settings.period ?? periodUnitOf(settings.pattern, settings.tz, at));
}

type Outcome =
  | { status: 'written' | 'recovered' | 'alreadyWritten' | 'nothingNew' }
  | { status: 'failed'; reason: string; permanent: boolean };

/** Runs the per-account digest for the run scheduled at `scheduledAt` (its window ends there). */
export async function runPerAccountDigest(deps: DigestDeps, scheduledAt: Date): Promise<DigestRunResult> {
  const settings = deps.settings.perAccount;
  if (!settings) throw new Error('the per-account digest is not configured');
  const period = perAccountPeriod(settings, scheduledAt);
  const windowEnd = scheduledAt;
  const result = emptyResult('per-account', period.id, windowEnd);
  const now = (deps.now ?? (() => new Date()))();
  // The feeds count their relative period back from the provider's (real) clock.
  const feedOf = buyerFeeds(deps.buyerIntel, settings, new Date(Math.max(Date.now(), now.getTime())));

  const createNote = async (account: AccountRef, note: NoteDraft): Promise<NoteResult> => {
    if (deps.createNote) return deps.createNote(account.crm, account.tenant, note, { trigger: 'digest' });
    const [r] = await deps.connectorFor(account.crm, account.tenant).createNotes([note]);
    return (
      r ?? {
        dedupeKey: note.dedupeKey,
        ok: false,
        error: { status: undefined, message: 'no result', permanent: false },
      }
    );
  };

  const commit = (stateKey: string, end: string | undefined) =>
    deps.state.update(stateKey, { period: period.id, ...(end ? { watermark: end } : {}) }, [
      'pendingPeriod',
      'pendingEnd',
    ]);

  const digestAccount = async (account: AccountRef, buyerId: string): Promise<Outcome> => {
    const stateKey = accountStateKey(account);
    const state = await deps.state.get(stateKey);
    if (state.period === period.id) return { status: 'alreadyWritten' };
    const dedupeKey = digestNoteKey(buyerId, period.id);
    const connector = deps.connectorFor(account.crm, account.tenant);

    if (state.pendingPeriod === period.id) {
      // A run of this period wrote (or tried to write) the note and stopped before recording it.
      const onCrm = await connector.existingNoteKeys(account.accountId);
      if (onCrm.has(dedupeKey)) {
        await commit(stateKey, state.pendingEnd);
        await deps.ledgers.recordNotes(account, [dedupeKey]);
        return { status: 'recovered' };
      }
    }

    const since = state.watermark
      ? new Date(state.watermark)
      : new Date(windowEnd.getTime() - settings.lookbackDays * DAY);
    if (since.getTime() >= windowEnd.getTime()) return { status: 'nothingNew' };
    const fresh = inWindow(await feedOf(buyerId, since), since, windowEnd);
    if (!fresh.length) {
      await deps.state.update(stateKey, { watermark: windowEnd.toISOString() });
      return { status: 'nothingNew' };
    }

    const onCrm = await connector.existingNoteKeys(account.accountId);
    if (onCrm.has(dedupeKey)) {
      // On the CRM but unknown to us (our state was lost): keep the watermark, so nothing is skipped.
      await commit(stateKey, undefined);
      await deps.ledgers.recordNotes(account, [dedupeKey]);
      return { status: 'alreadyWritten' };
    }

    const lines = fresh.slice(0, settings.maxSignals).map(summarizeSignal);
    const note: NoteDraft = {
      accountId: account.accountId,
      dedupeKey,
      title: digestTitle(period, fresh.length),
      body: digestBody({ lines, total: fresh.length, since, until: windowEnd, footer: `Buyer: ${buyerId}` }),
      occurredAt: windowEnd.toISOString(),
    };
    await deps.state.update(stateKey, { pendingPeriod: period.id, pendingEnd: windowEnd.toISOString() });
    const written = await createNote(account, note);
    if (!written.ok)
      return { status: 'failed', reason: written.error.message, permanent: written.error.permanent };
    await commit(stateKey, windowEnd.toISOString());
    await deps.ledgers.recordNotes(account, [dedupeKey]);
    return { status: 'written' };
  };

  let transient = 0;
  const settle = async (entry: { account: AccountRef; buyerId: string }) => {
    let outcome: Outcome;
    try {
      outcome = await digestAccount(entry.account, entry.buyerId);
    } catch (err) {
      const permanent = failureFacts(err)?.permanent === true;
      outcome = { status: 'failed', reason: (err as Error).message, permanent };
    }
    result.counts[outcome.status]++;
    if (outcome.status === 'failed') {
      const name = `${entry.account.crm}:${entry.account.tenant}:${entry.account.accountId}`;
      deps.log?.warn('digest of an account failed', { account: name, reason: outcome.reason });
      if (result.failures.length < 20)
        result.failures.push({ account: name, reason: outcome.reason, permanent: outcome.permanent });
      if (!outcome.permanent) transient++;
    }
  };

  const seen = new Set<string>();
  for await (const page of deps.ledgers.matchedAccounts()) {
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < page.length; i = next++) {
        const entry = page[i];
        if (!entry?.buyerId || !inScope(deps, entry.account.crm, entry.account.tenant)) continue;
        // HSCAN may return an account twice: digest it once per run.
        const member = `${entry.account.crm}|${entry.account.tenant}|${entry.account.accountId}`;
        if (seen.has(member)) continue;
        seen.add(member);
        await settle(entry);
      }
    };
    await Promise.all(Array.from({ length: Math.min(settings.concurrency, page.length) }, lane));
  }
  deps.log?.info('per-account digest run', { period: period.id, ...result.counts });
  if (transient) throw new DigestIncompleteError(`${transient} account digest(s) failed; will retry`, result);
  return result;
}
