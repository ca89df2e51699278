import { loadEnv } from '../config/env.ts';
import {
  DIGEST_KINDS,
  DigestBusyError,
  DigestIncompleteError,
  type DigestKind,
  type DigestRunResult,
} from '../digest/deps.ts';
import { digestSettingsOf, TENANT_KINDS } from '../digest/run.ts';
import { createService } from '../service/runtime.ts';
import { settingsFromEnv } from '../service/settings.ts';
import { type CommandBody, UsageError } from './command.ts';
import { crmChoices, TENANT_USAGE, tenantConnection } from './crm-option.ts';
import { requireRedis } from './redis-check.ts';

/**
 * One line per rep the per-owner digest could not reach for good (no Slack user by their email, no
 * email at all): the run did what it could, but a person has something to fix, so the command says
 * whom and what, and exits 1. A retry fixes none of these (they are `permanent`).
 */
export function unreachedLines(result: DigestRunResult): string[] {
  if (result.kind !== 'per-owner') return [];
  return result.failures
    .filter((f) => f.permanent)
    .map((f) => `digest per-owner: ${f.account.replace(/:owner /, ': rep ')} was not reached: ${f.reason}`);
}

export const digestCommand: CommandBody = {
  usage: `buyer-intel-sync digest --now [--kind per-account|org-wide|per-owner] [--crm ${crmChoices()}] [${TENANT_USAGE}]

Per account: one note per matched account with the signals new since its last digest, ranked by
hotness, none where nothing is new. Org-wide: the top recent signals as a note on the configured
record and/or to the Slack-compatible webhook. Per owner: each rep gets one email and/or Slack
message of the new signals on the accounts they own in the CRM. A second run in the same period
writes or sends nothing. Without --kind, every configured kind runs (DIGEST_PER_ACCOUNT_CRON,
DIGEST_ORG_CRON, DIGEST_OWNER_CRON; see
.env.example). Prints one JSON line per run. Exits 1 when a run is incomplete (a retry will finish
it), another is running, or a rep could not be reached for good (each named on stderr with what to
fix, e.g. no Slack user with their email).

Every tenant's accounts and owners are digested: the configuration's and those stored with
\`tenants add\` or an install (their credentials read from the database). --tenant narrows the
per-account and per-owner digests to one portal or org (the org-wide digest, the install's, does not
run then).`,
  options: {
    now: { type: 'boolean', default: false },
    kind: { type: 'string' },
    crm: { type: 'string' },
    tenant: { type: 'string' },
  },
  async run(values) {
    if (!values.now)
      throw new UsageError('digest runs on its schedule in the worker; pass --now to run one here');
    if (values.kind !== undefined && !DIGEST_KINDS.includes(values.kind as DigestKind))
      throw new UsageError(`--kind must be ${DIGEST_KINDS.join(' or ')}, got "${String(values.kind)}"`);
    const settings = await settingsFromEnv(loadEnv());
    if (values.crm !== undefined && values.tenant === undefined)
      throw new UsageError('--crm goes with --tenant');
    const configured = DIGEST_KINDS.filter((k) => digestSettingsOf(settings.digest ?? {}, k));
    if (
      values.tenant !== undefined &&
      values.kind !== undefined &&
      !TENANT_KINDS.includes(values.kind as DigestKind)
    )
      throw new UsageError(
        `the ${values.kind} digest is the install's: --tenant goes with ${TENANT_KINDS.join(' or ')}`,
      );
    const kinds = values.kind
      ? [values.kind as DigestKind]
      : configured.filter((k) => values.tenant === undefined || TENANT_KINDS.includes(k));
    const missing = kinds.filter((k) => !configured.includes(k));
    if (!kinds.length || missing.length)
      throw new UsageError(
        `${missing.length ? missing.join(', ') : 'no digest'} is not configured: set DIGEST_PER_ACCOUNT_CRON, DIGEST_ORG_CRON and/or DIGEST_OWNER_CRON (see .env.example)`,
      );
    await requireRedis(settings.redisUrl, settings.prefix);
    const service = createService(settings);
    let code = 0;
    try {
      // The stored tenants' accounts are digested too: without their connections each failed with
      // "no <crm> connection" (issue 44).
      const only =
        values.tenant === undefined ? undefined : await tenantConnection(values, settings, service);
      if (!only) await service.loadTenants();
      for (const kind of kinds) {
        try {
          const result = await service.digest(kind, only ? { tenant: only } : {});
          process.stdout.write(`${JSON.stringify(result)}\n`);
          const unreached = unreachedLines(result);
          for (const line of unreached) process.stderr.write(`${line}\n`);
          if (unreached.length) code = 1;
        } catch (err) {
          if (err instanceof DigestIncompleteError) {
            process.stdout.write(`${JSON.stringify({ ...err.result, incomplete: true })}\n`);
            for (const line of unreachedLines(err.result)) process.stderr.write(`${line}\n`);
          } else if (err instanceof DigestBusyError) {
            process.stderr.write(`digest ${kind} is already running elsewhere; try again later\n`);
          } else throw err;
          code = 1;
        }
      }
      return code;
    } finally {
      await service.close();
    }
  },
};
