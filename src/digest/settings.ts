// Digest settings, validated at the boundary (configuration or env). The Slack webhook URL, the SMTP URL
// (it may hold a password) and the Slack bot token are secrets: accepted here, used by the deliveries,
// never logged, never put in job data, never echoed in an error.

import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';
import { isCrmKind } from '../../connectors/registry.ts';
import { ROW_STATUSES, SIGNAL_FILTER_TYPES } from '../buyer-intel/enums.ts';
import { timeZone } from '../shared/cron.ts';
import { OWNER_CHANNEL_KINDS } from './owner-message.ts';

const cronPattern = z
  .string()
  .trim()
  .min(1)
  .superRefine((value, ctx) => {
    try {
      CronExpressionParser.parse(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `is not a cron pattern (${(err as Error).message})` });
    }
  });

export const crmRecordSchema = z.object({
  crm: z.string().refine(isCrmKind, 'is not a CRM this service speaks'),
  tenant: z.string().trim().min(1),
  accountId: z.string().trim().min(1),
});

const common = {
  /** Cron pattern, e.g. `0 8 * * 1` (Mondays 08:00). */
  pattern: cronPattern,
  /** IANA time zone the pattern and the period are read in. */
  tz: timeZone.default('UTC'),
  /** Calendar unit of a period (one digest per period); default: derived from the pattern. */
  period: z.enum(['day', 'week', 'month']).optional(),
  /** How far back the first digest (no watermark yet) looks. */
  lookbackDays: z.number().int().min(1).max(730).default(7),
  /** Signals listed in one digest (the count in the title covers all new ones). */
  maxSignals: z.number().int().min(1).max(50).default(10),
  /** Signal kinds to include; empty/absent = all. */
  filterType: z.array(z.enum(SIGNAL_FILTER_TYPES)).optional(),
  /** Row statuses to include; absent = the API's default (`New`). */
  status: z.array(z.enum(ROW_STATUSES)).optional(),
};

export const perAccountDigestSchema = z.object({
  ...common,
  /** Pages (100 signals each) read per buyer and run at most. */
  maxPages: z.number().int().min(1).max(50).default(5),
  /** Accounts digested at once. */
  concurrency: z.number().int().min(1).max(32).default(4),
});

export const orgWideDigestSchema = z
  .object({
    ...common,
    /** Pages (100 signals each) of the cross-buyer feed read per run at most. */
    maxPages: z.number().int().min(1).max(100).default(20),
    /** `matched`: only buyers matched to a CRM account; `all`: every buyer of the API organization. */
    scope: z.enum(['matched', 'all']).default('matched'),
    /** The CRM record that receives the org-wide digest as a note. */
    target: crmRecordSchema.optional(),
    /** A Slack-compatible incoming webhook (secret). */
    slackWebhookUrl: z.url({ protocol: /^https?$/ }).optional(),
  })
  .refine((v) => v.target !== undefined || v.slackWebhookUrl !== undefined, {
    message: 'needs a target record, a Slack webhook URL, or both',
  });

const channelList = z.array(z.enum(OWNER_CHANNEL_KINDS)).min(1);

export const perOwnerDigestSchema = z
  .object({
    ...common,
    /** Pages (100 signals each) read per buyer and run at most. */
    maxPages: z.number().int().min(1).max(50).default(5),
    /** Owners digested at once. */
    concurrency: z.number().int().min(1).max(16).default(4),
    /** How reps are reached unless their tenant says otherwise. */
    channels: channelList.default(['email']),
    /** Per `crm:tenant`: that portal's or org's channels. */
    tenantChannels: z
      .record(z.string().regex(/^[^:\s]+:\S+$/, 'keys are crm:tenant'), channelList)
      .default({}),
    /** SMTP: `smtp://user:pass@host:587` or `smtps://…` (secret) and the sender. */
    email: z.object({ smtpUrl: z.url({ protocol: /^smtps?$/ }), from: z.email() }).optional(),
    /** Slack Web API: a bot token (`xoxb-…`, secret; scopes users:read.email, im:write, chat:write). */
    slack: z
      .object({
        botToken: z.string().regex(/^xoxb-[\w-]+$/, 'is no bot token (xoxb-…)'),
        apiUrl: z.url({ protocol: /^https?$/ }).default('https://slack.com/api/'),
      })
      .optional(),
  })
  .superRefine((v, ctx) => {
    const used = new Set([...v.channels, ...Object.values(v.tenantChannels).flat()]);
    if (used.has('email') && !v.email)
      ctx.addIssue({
        code: 'custom',
        path: ['email'],
        message: 'email delivery needs an SMTP URL and a sender',
      });
    if (used.has('slack') && !v.slack)
      ctx.addIssue({ code: 'custom', path: ['slack'], message: 'Slack delivery needs a bot token' });
  });

export const digestSettingsSchema = z.object({
  /** Absent: no per-account digest is scheduled. */
  perAccount: perAccountDigestSchema.optional(),
  /** Absent: no org-wide digest is scheduled. */
  orgWide: orgWideDigestSchema.optional(),
  /** Absent: no per-owner (rep) digest is scheduled. */
  perOwner: perOwnerDigestSchema.optional(),
});

export type DigestSettings = z.output<typeof digestSettingsSchema>;
export type DigestSettingsInput = z.input<typeof digestSettingsSchema>;
export type PerAccountDigestSettings = z.output<typeof perAccountDigestSchema>;
export type OrgWideDigestSettings = z.output<typeof orgWideDigestSchema>;
export type PerOwnerDigestSettings = z.output<typeof perOwnerDigestSchema>;

/** Validates settings; the error names the path and never echoes values (the webhook URL is secret). */
export function parseDigestSettings(input: unknown): DigestSettings {
  const parsed = digestSettingsSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`invalid digest settings: ${issues.join('; ')}`);
  }
  return parsed.data;
}

const intOf = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : Number(v));
const listOf = (v: string | undefined) =>
  v
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const isOff = (v: string | undefined) =>
  v === undefined || v.trim() === '' || v.trim().toLowerCase() === 'off';

/**
 * Settings from environment variables (all optional; a digest without its cron is not scheduled):
 *
 * - `DIGEST_TZ` (default UTC), `DIGEST_LOOKBACK_DAYS` (7)
 * - `DIGEST_PER_ACCOUNT_CRON` e.g. `0 8 * * 1`, `DIGEST_PER_ACCOUNT_MAX_SIGNALS` (10)
 * - `DIGEST_ORG_CRON`, `DIGEST_ORG_MAX_SIGNALS` (10), `DIGEST_ORG_SCOPE` (matched|all),
 *   `DIGEST_ORG_TARGET` (`crm:tenant:accountId`), `DIGEST_SLACK_WEBHOOK_URL` (secret)
 * - `DIGEST_OWNER_CRON`, `DIGEST_OWNER_MAX_SIGNALS` (10), `DIGEST_OWNER_CHANNELS` (`email`, `slack`
 *   or both, comma-separated; default email), `DIGEST_OWNER_TENANT_CHANNELS` (`crm:tenant=slack;…`),
 *   `DIGEST_SMTP_URL` (secret), `DIGEST_EMAIL_FROM`, `SLACK_BOT_TOKEN` (secret), `SLACK_API_URL`
 * - `DIGEST_FILTER_TYPES`, `DIGEST_STATUSES` (comma-separated)
 */
export function digestSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): DigestSettings {
  const shared = {
    tz: env.DIGEST_TZ?.trim() || undefined,
    lookbackDays: intOf(env.DIGEST_LOOKBACK_DAYS),
    filterType: listOf(env.DIGEST_FILTER_TYPES),
    status: listOf(env.DIGEST_STATUSES),
  };
  const target = env.DIGEST_ORG_TARGET?.trim();
  const [crm, tenant, ...rest] = target ? target.split(':') : [];
  return parseDigestSettings({
    ...(isOff(env.DIGEST_PER_ACCOUNT_CRON)
      ? {}
      : {
          perAccount: {
            ...shared,
            pattern: env.DIGEST_PER_ACCOUNT_CRON,
            maxSignals: intOf(env.DIGEST_PER_ACCOUNT_MAX_SIGNALS),
          },
        }),
    ...(isOff(env.DIGEST_ORG_CRON)
      ? {}
      : {
          orgWide: {
            ...shared,
            pattern: env.DIGEST_ORG_CRON,
            maxSignals: intOf(env.DIGEST_ORG_MAX_SIGNALS),
            scope: env.DIGEST_ORG_SCOPE?.trim() || undefined,
            ...(target ? { target: { crm, tenant, accountId: rest.join(':') } } : {}),
            ...(env.DIGEST_SLACK_WEBHOOK_URL?.trim()
              ? { slackWebhookUrl: env.DIGEST_SLACK_WEBHOOK_URL.trim() }
              : {}),
          },
        }),
    ...(isOff(env.DIGEST_OWNER_CRON) ? {} : { perOwner: perOwnerFromEnv(env, shared) }),
  });
}

function perOwnerFromEnv(env: Readonly<Record<string, string | undefined>>, shared: Record<string, unknown>) {
  const tenantChannels = Object.fromEntries(
    (env.DIGEST_OWNER_TENANT_CHANNELS ?? '')
      .split(';')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry) => {
        const at = entry.lastIndexOf('=');
        return at < 0 ? [entry, []] : [entry.slice(0, at).trim(), listOf(entry.slice(at + 1)) ?? []];
      }),
  );
  const smtpUrl = env.DIGEST_SMTP_URL?.trim();
  const from = env.DIGEST_EMAIL_FROM?.trim();
  const botToken = env.SLACK_BOT_TOKEN?.trim();
  return {
    ...shared,
    pattern: env.DIGEST_OWNER_CRON,
    maxSignals: intOf(env.DIGEST_OWNER_MAX_SIGNALS),
    channels: listOf(env.DIGEST_OWNER_CHANNELS),
    tenantChannels,
    ...(smtpUrl || from ? { email: { smtpUrl, from } } : {}),
    ...(botToken ? { slack: { botToken, apiUrl: env.SLACK_API_URL?.trim() || undefined } } : {}),
  };
}
