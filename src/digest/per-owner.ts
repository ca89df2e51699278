// The per-owner digest: each rep (a CRM owner) receives ONE message per period — email and/or Slack
// DM, per tenant — holding the signals new since their last digest on the matched accounts they own in
// the CRM (owner-accounts.ts reads who owns what). A rep with nothing new receives nothing.
//
// Never twice, under retries, a second worker and crashes: per owner the database keeps `watermark`,
// `period` (done: the fast path) and `pendingPeriod`/`pendingEnd` (the window being delivered); each
// delivery is claimed in the database before it is sent (`<channel>:<period>` = `sending`, one
// statement that only one caller can win) and marked `sent` after. A claim held by a run still at work
// makes this run retry later; a failed send gives its claim back (the retry sends it); a crash between
// the send and the mark leaves a claim that, once stale, counts as delivered rather than risk a second
// copy (at most once, logged). The watermark moves only once every channel of the owner is settled.
import { createHash } from 'node:crypto';
import { failureFacts } from '../shared/errors.ts';
import {
  type DigestDeps,
  DigestIncompleteError,
  type DigestRunResult,
  emptyResult,
  inScope,
} from './deps.ts';
import {
  type OwnedAccount,
  type OwnerGroup,
  ownersOfTenant,
  shownName,
  type TenantAccounts,
  tenantsOfMatched,
} from './owner-accounts.ts';
import { ChannelError, type OwnerChannelKind, type OwnerMessage } from './owner-message.ts';
import { type OwnerSection, ownerSlack, ownerSubject, ownerText } from './owner-render.ts';
import { type Period, periodOf, periodUnitOf, windowLabel } from './period.ts';
import { summarizeSignal } from './render.ts';
import type { PerOwnerDigestSettings } from './settings.ts';
import { buyerFeeds, inWindow } from './signals.ts';

const DAY = 86_400_000;
/** A delivery claim's value: `sending:<when>`. An older one was left by a run that stopped mid-send. */
const SENDING = 'sending:';
const CLAIM_STALE_MS = 15 * 60_000;

export function ownerStateKey(crm: string, tenant: string, ownerId: string): string {
  return `owner:${crm}:${tenant}:${ownerId}`;
}

export function perOwnerPeriod(settings: PerOwnerDigestSettings, at: Date): Period {
  return periodOf(at, settings.tz, settings.period ?? periodUnitOf(settings.pattern, settings.tz, at));
}

type Outcome =
  | { status: 'written' | 'recovered' | 'alreadyWritten' | 'nothingNew'; unreachable?: string }
  | { status: 'failed'; reason: string; permanent: boolean };

export async function runPerOwnerDigest(deps: DigestDeps, scheduledAt: Date): Promise<DigestRunResult> {
  const settings = deps.settings.perOwner;
  if (!settings) throw new Error('the per-owner digest is not configured');
  const period = perOwnerPeriod(settings, scheduledAt);
  const result = emptyResult('per-owner', period.id, scheduledAt);
  const now = (deps.now ?? (() => new Date()))();
  // The feeds count their relative period back from the provider's (real) clock.
  const feedOf = buyerFeeds(deps.buyerIntel, settings, new Date(Math.max(Date.now(), now.getTime())));

  const sectionsOf = async (accounts: readonly OwnedAccount[], since: Date, until: Date) => {
    const sections: OwnerSection[] = [];
    for (const a of accounts) {
      const fresh = inWindow(await feedOf(a.buyerId, since), since, until);
      if (fresh.length)
        sections.push({
          accountName: shownName(a, accounts),
          total: fresh.length,
          lines: fresh.slice(0, settings.maxSignals).map(summarizeSignal),
        });
    }
    return sections.sort((x, y) => y.total - x.total);
  };

  /** Sends on one channel unless already settled; throws ChannelError when it could not. */
  const deliver = async (
    scope: string,
    kind: OwnerChannelKind,
    message: OwnerMessage,
    state: Record<string, string>,
  ) => {
    const mark = `${kind}:${period.id}`;
    const seen = state[mark];
    if (seen === 'sent' || seen === 'unreachable') return;
    if (seen?.startsWith(SENDING)) {
      if (Date.now() - Date.parse(seen.slice(SENDING.length)) < CLAIM_STALE_MS)
        throw new ChannelError(`${kind} delivery in flight in another run`, false);
      deps.log?.warn('owner digest: a run stopped while sending; counted as sent, not sent again', {
        scope,
        channel: kind,
      });
      return;
    }
    if (!(await deps.state.claim(scope, mark, `${SENDING}${new Date().toISOString()}`)))
      throw new ChannelError(`${kind} delivery in flight in another run`, false);
    const channel = deps.ownerChannels?.[kind];
    try {
      if (!channel) throw new ChannelError(`no ${kind} channel configured`, true);
      await channel(message);
      await deps.state.update(scope, { [mark]: 'sent' });
    } catch (err) {
      const permanent = failureFacts(err)?.permanent === true;
      // A permanent refusal is settled for this period; anything else gives the claim back for the retry.
      if (permanent) await deps.state.update(scope, { [mark]: 'unreachable' });
      else await deps.state.update(scope, {}, [mark]);
      throw err;
    }
  };

  const digestOwner = async (tenant: TenantAccounts, owner: OwnerGroup): Promise<Outcome> => {
    const scope = ownerStateKey(tenant.crm, tenant.tenant, owner.id);
    const state = await deps.state.get(scope);
    if (state.period === period.id) return { status: 'alreadyWritten' };
    if (!owner.email) return { status: 'failed', reason: `owner ${owner.id} has no email`, permanent: true };
    const resumed = state.pendingPeriod === period.id && state.pendingEnd;
    const until = resumed ? new Date(String(state.pendingEnd)) : scheduledAt;
    const since = state.watermark
      ? new Date(state.watermark)
      : new Date(until.getTime() - settings.lookbackDays * DAY);
    if (since.getTime() >= until.getTime()) return { status: 'nothingNew' };
    const sections = await sectionsOf(owner.accounts, since, until);
    if (!sections.length) {
      await deps.state.update(scope, { watermark: until.toISOString() }, ['pendingPeriod', 'pendingEnd']);
      return { status: 'nothingNew' };
    }
    const window = windowLabel(since, until, settings.tz);
    const subject = ownerSubject(window, sections);
    const message: OwnerMessage = {
      to: { email: owner.email, name: owner.name },
      subject,
      text: ownerText({ name: owner.name, sections, window }),
      slack: ownerSlack(subject, sections),
      messageId: `<digest.${createHash('sha256').update(`${scope}|${period.id}`).digest('hex').slice(0, 32)}@buyer-intel-sync>`,
    };
    if (!resumed)
      await deps.state.update(scope, { pendingPeriod: period.id, pendingEnd: until.toISOString() });
    const channels = settings.tenantChannels[`${tenant.crm}:${tenant.tenant}`] ?? settings.channels;
    const errors: ChannelError[] = [];
    for (const kind of channels) {
      try {
        await deliver(scope, kind, message, state);
      } catch (err) {
        errors.push(err instanceof ChannelError ? err : new ChannelError((err as Error).message, false));
      }
    }
    if (errors.some((e) => !e.permanent))
      return { status: 'failed', reason: errors.map((e) => e.message).join('; '), permanent: false };
    const marks = channels.map((k) => `${k}:${period.id}`);
    await deps.state.update(scope, { period: period.id, watermark: until.toISOString() }, [
      'pendingPeriod',
      'pendingEnd',
      ...marks,
    ]);
    const status = resumed ? 'recovered' : 'written';
    if (errors.length === channels.length)
      return { status: 'failed', reason: errors.map((e) => e.message).join('; '), permanent: true };
    return errors.length ? { status, unreachable: errors.map((e) => e.message).join('; ') } : { status };
  };

  let transient = 0;
  const settle = async (tenant: TenantAccounts, owner: OwnerGroup) => {
    let outcome: Outcome;
    try {
      outcome = await digestOwner(tenant, owner);
    } catch (err) {
      outcome = { status: 'failed', reason: (err as Error).message, permanent: false };
    }
    result.counts[outcome.status]++;
    const name = `${tenant.crm}:${tenant.tenant}:owner ${owner.id}`;
    if (outcome.status !== 'failed') {
      // Delivered on some channel; the rest refused for good (no Slack user by that email, say).
      if (outcome.unreachable && result.failures.length < 20)
        result.failures.push({ account: name, reason: outcome.unreachable, permanent: true });
      return;
    }
    deps.log?.warn('owner digest failed', { owner: name, reason: outcome.reason });
    if (result.failures.length < 20)
      result.failures.push({ account: name, reason: outcome.reason, permanent: outcome.permanent });
    if (!outcome.permanent) transient++;
  };

  for (const tenant of await tenantsOfMatched(deps.ledgers)) {
    if (!inScope(deps, tenant.crm, tenant.tenant)) continue;
    let owners: OwnerGroup[];
    try {
      owners = await ownersOfTenant(deps.connectorFor(tenant.crm, tenant.tenant), tenant);
    } catch (err) {
      transient++;
      result.counts.failed++;
      result.failures.push({
        account: `${tenant.crm}:${tenant.tenant}`,
        reason: `owners not read: ${(err as Error).message}`,
        permanent: false,
      });
      continue;
    }
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < owners.length; i = next++) {
        const owner = owners[i];
        if (owner) await settle(tenant, owner);
      }
    };
    await Promise.all(Array.from({ length: Math.min(settings.concurrency, owners.length) }, lane));
  }
  deps.log?.info('per-owner digest run', { period: period.id, ...result.counts });
  if (transient) throw new DigestIncompleteError(`${transient} owner digest(s) failed; will retry`, result);
  return result;
}
