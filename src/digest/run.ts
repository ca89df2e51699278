// One run of a digest kind: under its lock, for the period holding the time the run stands for. The
// digest queue's worker (queues/digest-queue.ts) calls it with a job's scheduled time; the CLI and the
// service's `digest --now` with the present.
import {
  DIGEST_KINDS,
  type DigestDeps,
  type DigestKind,
  type DigestRunResult,
  withDigestLock,
} from './deps.ts';
import { runOrgWideDigest } from './org-wide.ts';
import { runPerAccountDigest } from './per-account.ts';
import { runPerOwnerDigest } from './per-owner.ts';
import type { DigestSettings } from './settings.ts';

/** The settings of one kind; undefined when that kind is not configured (not scheduled). */
export const digestSettingsOf = (settings: DigestSettings, kind: DigestKind) =>
  kind === 'per-account' ? settings.perAccount : kind === 'org-wide' ? settings.orgWide : settings.perOwner;

const RUNS: Record<DigestKind, (deps: DigestDeps, scheduledAt: Date) => Promise<DigestRunResult>> = {
  'per-account': runPerAccountDigest,
  'org-wide': runOrgWideDigest,
  'per-owner': runPerOwnerDigest,
};

/** The configured digests' schedules, for the digest queue's schedulers. */
export function digestSchedules(
  settings: DigestSettings,
): { kind: DigestKind; pattern: string; tz: string }[] {
  return DIGEST_KINDS.flatMap((kind) => {
    const s = digestSettingsOf(settings, kind);
    return s ? [{ kind, pattern: s.pattern, tz: s.tz }] : [];
  });
}

/** What the digest queue's worker runs: the configured kinds, each under its lock. */
export function digestProcessor(deps: DigestDeps): {
  configured: (kind: string) => boolean;
  run: (kind: string, scheduledAt: Date) => Promise<DigestRunResult>;
} {
  const isKind = (kind: string): kind is DigestKind => (DIGEST_KINDS as readonly string[]).includes(kind);
  return {
    configured: (kind) => isKind(kind) && !!digestSettingsOf(deps.settings, kind),
    run: (kind, scheduledAt) => {
      if (!isKind(kind)) throw new Error(`unknown digest kind "${kind}"`);
      return runDigest(deps, kind, scheduledAt);
    },
  };
}

export function runDigest(deps: DigestDeps, kind: DigestKind, scheduledAt: Date): Promise<DigestRunResult> {
  return withDigestLock(deps, kind, () => RUNS[kind](deps, scheduledAt));
}

/**
 * One run now, in this process (`buyer-intel-sync digest --now`). Its period is the one holding now, so
 * it writes nothing for an account whose digest of this period is already on the CRM.
 */
export function runDigestNow(
  deps: DigestDeps,
  kind: DigestKind,
  options: { tenant?: DigestDeps['only'] } = {},
): Promise<DigestRunResult> {
  if (!digestSettingsOf(deps.settings, kind)) throw new Error(`the ${kind} digest is not configured`);
  // The org-wide digest is the install's, on its one target record: it has no tenant to narrow to.
  if (options.tenant && !TENANT_KINDS.includes(kind))
    throw new Error(`the ${kind} digest is the install's, not a tenant's: it takes no tenant`);
  const scoped = options.tenant ? { ...deps, only: options.tenant } : deps;
  return runDigest(scoped, kind, (deps.now ?? (() => new Date()))());
}

/** The kinds made of each tenant's accounts (or owners): those `digest --now --tenant` can narrow. */
export const TENANT_KINDS: readonly DigestKind[] = ['per-account', 'per-owner'];
