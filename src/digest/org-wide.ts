// The org-wide digest: the hottest signals that reached the feed since the last org-wide digest, across
// buyers, from the API's cross-buyer feed (`listTopRecentSignals`, hotness order), kept to the buyers
// matched to a CRM account (scope `matched`) or all of them (`all`). Delivered as a note on a configured
// CRM record and/or to a Slack-compatible incoming webhook. Each delivery is done at most once per
// period (the note by its dedupe key on the CRM, Slack by a mark in the digest state set after a 2xx); a failed one
// fails the run so the job retries, and the retry skips what was delivered. The watermark moves only
// once every configured delivery is done. (Slack has no dedupe: a crash between its 2xx and our mark
// can repeat a message; that is the one at-least-once edge.)
import type { NoteDraft } from '../../connectors/types.ts';
import { type DigestDeps, DigestIncompleteError, type DigestRunResult, emptyResult } from './deps.ts';
import { type Period, periodOf, periodUnitOf, relativePeriodCovering } from './period.ts';
import { digestBody, digestTitle, type SlackMessage, slackMessage, summarizeSignal } from './render.ts';
import type { OrgWideDigestSettings } from './settings.ts';
import { FEED_PAGE_SIZE, inWindow, readFeed } from './signals.ts';

const DAY = 86_400_000;
const SLACK_TIMEOUT_MS = 10_000;

export function orgDigestNoteKey(periodId: string): string {
  return `digest:org:${periodId}`;
}

/** The org-wide digest's scope in the digest state (src/store/digest-state.ts). */
export const ORG_STATE_KEY = 'org';

export function orgWidePeriod(settings: OrgWideDigestSettings, at: Date): Period {
  return periodOf(at, settings.tz, settings.period ?? periodUnitOf(settings.pattern, settings.tz, at));
}

/** A failed webhook call. The message names the status or error code, never the URL (a secret). */
export class SlackDeliveryError extends Error {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = 'SlackDeliveryError';
    this.status = status;
  }
}

export async function postToSlack(
  fetchImpl: typeof globalThis.fetch,
  url: string,
  message: SlackMessage,
): Promise<void> {
  let res: Response;
  try {
    res = await fetchImpl(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(SLACK_TIMEOUT_MS),
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: unknown } };
    const code = typeof e.cause?.code === 'string' ? e.cause.code : e.name;
    throw new SlackDeliveryError(`Slack webhook unreachable (${code})`);
  }
  await res.arrayBuffer().catch(() => undefined);
  if (!res.ok) throw new SlackDeliveryError(`Slack webhook answered ${res.status}`, res.status);
}

export async function runOrgWideDigest(deps: DigestDeps, scheduledAt: Date): Promise<DigestRunResult> {
  const settings = deps.settings.orgWide;
  if (!settings) throw new Error('the org-wide digest is not configured');
  const period = orgWidePeriod(settings, scheduledAt);
  const windowEnd = scheduledAt;
  const result: DigestRunResult = {
    ...emptyResult('org-wide', period.id, windowEnd),
    delivered: { note: false, slack: false },
  };
  const stateKey = ORG_STATE_KEY;
  const slackMark = `slack:${period.id}`;
  const noteKey = orgDigestNoteKey(period.id);
  const target = settings.target;
  const connector = target ? deps.connectorFor(target.crm, target.tenant) : null;

  const commit = (end: string | undefined) =>
    deps.state.update(stateKey, { period: period.id, ...(end ? { watermark: end } : {}) }, [
      'pendingPeriod',
      'pendingEnd',
      slackMark,
    ]);

  const state = await deps.state.get(stateKey);
  if (state.period === period.id) {
    result.counts.alreadyWritten++;
    return result;
  }
  const noteOnCrm = async () =>
    connector && target ? (await connector.existingNoteKeys(target.accountId)).has(noteKey) : false;

  if (state.pendingPeriod === period.id) {
    const noteDone = !target || (await noteOnCrm());
    const slackDone = !settings.slackWebhookUrl || state[slackMark] === '1';
    if (noteDone && slackDone) {
      await commit(state.pendingEnd);
      result.counts.recovered++;
      return result;
    }
  }

  const since = state.watermark
    ? new Date(state.watermark)
    : new Date(windowEnd.getTime() - settings.lookbackDays * DAY);
  let buyers: Set<string> | null = null;
  if (settings.scope === 'matched') {
    buyers = new Set();
    for await (const page of deps.ledgers.matchedAccounts()) for (const m of page) buyers.add(m.buyerId);
  }
  const now = (deps.now ?? (() => new Date()))();
  const clock = new Date(Math.max(Date.now(), now.getTime()));
  const relative = relativePeriodCovering(since, clock);
  const fresh =
    since.getTime() >= windowEnd.getTime() || buyers?.size === 0
      ? []
      : inWindow(
          (
            await readFeed(
              (pageNumber) =>
                deps.buyerIntel.listTopRecentSignals({
                  sort: 'Hotness',
                  relativeDatePeriodFrom: relative,
                  pageNumber,
                  pageSize: FEED_PAGE_SIZE,
                  ...(settings.filterType?.length ? { filterType: settings.filterType } : {}),
                  ...(settings.status?.length ? { status: settings.status } : {}),
                }),
              settings.maxPages,
            )
          ).signals.filter((s) => !buyers || (s.row.buyerId ? buyers.has(s.row.buyerId) : false)),
          since,
          windowEnd,
        );
  if (!fresh.length) {
    if (since.getTime() < windowEnd.getTime())
      await deps.state.update(stateKey, { watermark: windowEnd.toISOString() });
    result.counts.nothingNew++;
    return result;
  }

  const scope = settings.scope === 'matched' ? 'matched accounts' : 'all buyers';
  const title = digestTitle(period, fresh.length, scope);
  const lines = fresh.slice(0, settings.maxSignals).map(summarizeSignal);
  await deps.state.update(stateKey, { pendingPeriod: period.id, pendingEnd: windowEnd.toISOString() });

  const failures: { account: string; reason: string; permanent: boolean }[] = [];
  const delivered = { note: false, slack: false };
  if (target && connector) {
    try {
      if (await noteOnCrm()) delivered.note = true;
      else {
        const note: NoteDraft = {
          accountId: target.accountId,
          dedupeKey: noteKey,
          title,
          body: digestBody({
            lines: lines.map((l) => ({
              ...l,
              title: l.buyerId ? `${l.title} (buyer ${l.buyerId})` : l.title,
            })),
            total: fresh.length,
            since,
            until: windowEnd,
          }),
          occurredAt: windowEnd.toISOString(),
        };
        const r = deps.createNote
          ? await deps.createNote(target.crm, target.tenant, note, { trigger: 'digest' })
          : (await connector.createNotes([note]))[0];
        if (r?.ok) {
          delivered.note = true;
          result.delivered = { ...delivered };
        } else {
          failures.push({
            account: `${target.crm}:${target.tenant}:${target.accountId}`,
            reason: r?.error.message ?? 'no result',
            permanent: r?.error.permanent ?? false,
          });
        }
      }
    } catch (err) {
      failures.push({
        account: `${target.crm}:${target.tenant}:${target.accountId}`,
        reason: (err as Error).message,
        permanent: false,
      });
    }
  }
  if (settings.slackWebhookUrl) {
    if ((await deps.state.get(stateKey))[slackMark] === '1') delivered.slack = true;
    else {
      try {
        await postToSlack(
          deps.fetch ?? globalThis.fetch,
          settings.slackWebhookUrl,
          slackMessage({ title, lines, total: fresh.length }),
        );
        await deps.state.update(stateKey, { [slackMark]: '1' });
        delivered.slack = true;
      } catch (err) {
        failures.push({ account: 'slack', reason: (err as Error).message, permanent: false });
      }
    }
  }
  result.delivered = delivered;
  if (failures.length) {
    result.counts.failed += failures.length;
    result.failures = failures;
    for (const f of failures)
      deps.log?.warn('org-wide digest delivery failed', { to: f.account, reason: f.reason });
    throw new DigestIncompleteError(
      `org-wide digest: ${failures.map((f) => `${f.account}: ${f.reason}`).join('; ')}`,
      result,
    );
  }
  await commit(windowEnd.toISOString());
  result.counts.written++;
  deps.log?.info('org-wide digest run', { period: period.id, signals: fresh.length, ...delivered });
  return result;
}
