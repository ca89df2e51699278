// Configuration is read once, from the environment, and validated in one zod schema so that a bad
// configuration lists every problem at start, not the first one. Secrets are never echoed back.
import { z } from 'zod';
import {
  RELATIVE_DATE_PERIODS,
  ROW_STATUSES,
  SIGNAL_FILTER_TYPES,
  SIGNAL_SORTS,
} from '../buyer-intel/enums.ts';
import { type DigestSettings, digestSettingsFromEnv } from '../digest/settings.ts';
import { IntegrationError } from '../shared/errors.ts';
import { parseHmacSecret, parsePublicKey } from '../signals/standard-webhooks.ts';
import { cronOrOff, timeZone } from './cron.ts';
import { readConfigFile } from './file.ts';

const int = (min: number, max: number, fallback: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? fallback);

const ratio = (fallback: number) =>
  z
    .string()
    .trim()
    .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a number from 0 to 1')
    .transform(Number)
    .optional()
    .transform((v) => v ?? fallback);

const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const list = <T extends string>(allowed: readonly T[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const items = (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = items.filter((i) => !(allowed as readonly string[]).includes(i));
      if (bad.length)
        ctx.addIssue({
          code: 'custom',
          message: `unknown value(s) ${bad.join(', ')}; allowed: ${allowed.join(', ')}`,
        });
      return items as T[];
    });

const secret = z.string().trim().min(1, 'is required');

/** A comma-separated list of keys, each checked by `parse` (which never echoes a key). */
const splitList = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);

/** A comma-separated list of keys, each checked by `valid`; a message never echoes a key. */
const checkedList = (valid: (key: string) => boolean, message: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const keys = splitList(v);
      if (!keys.every(valid)) ctx.addIssue({ code: 'custom', message });
      return keys;
    });

const secretList = (minLength: number, message: string) => checkedList((k) => k.length >= minLength, message);

const keyList = (parse: (key: string) => unknown, message: string) =>
  checkedList((key) => {
    try {
      parse(key);
      return true;
    } catch {
      return false;
    }
  }, message);

export const envSchema = z.object({
  BUYER_INTEL_BASE_URL: url,
  BUYER_INTEL_TOKEN: secret,
  BUYER_INTEL_TIMEOUT_MS: int(100, 120_000, 10_000),
  BUYER_INTEL_MAX_ATTEMPTS: int(1, 10, 4),
  BUYER_INTEL_RATE_PER_SECOND: int(1, 10_000, 10),
  BUYER_INTEL_BURST: int(1, 10_000, 20),
  BUYER_INTEL_CACHE_TTL_MS: int(0, 86_400_000, 300_000),

  /** The provider's row webhooks: `whsec_…` HMAC secrets and/or `whpk_…` Ed25519 public keys. */
  BUYER_INTEL_WEBHOOK_SECRETS: keyList(
    parseHmacSecret,
    'each must be whsec_ followed by base64 (≥ 16 bytes)',
  ),
  BUYER_INTEL_WEBHOOK_PUBLIC_KEYS: keyList(
    parsePublicKey,
    'each must be an Ed25519 public key (whpk_…, PEM or base64)',
  ),
  BUYER_INTEL_WEBHOOK_BRIDGE_IDS: z.string().optional().transform(splitList),

  REDIS_URL: z
    .url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' })
    .default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]+$/i, 'letters, digits, - and _ only')
    .default('bis'),

  HUBSPOT_ACCESS_TOKEN: secret.optional(),
  HUBSPOT_PORTAL_ID: z.string().trim().regex(/^\d+$/, 'must be the numeric portal (hub) id').optional(),
  HUBSPOT_CLIENT_SECRET: secret.optional(),
  /** The app's OAuth client id: needed to refresh the tokens of portals installed through OAuth. */
  HUBSPOT_CLIENT_ID: z.string().trim().min(1).optional(),
  /** HubSpot's consent page for /oauth/hubspot/install. */
  HUBSPOT_AUTHORIZE_URL: url.default('https://app.hubspot.com/oauth/authorize'),
  HUBSPOT_APP_ID: z.string().trim().regex(/^\d+$/, 'must be the numeric app id').optional(),
  HUBSPOT_BASE_PATH: url.default('https://api.hubapi.com'),
  /** Calls per rolling 10 s our app may make per portal (HubSpot: 100 Free/Starter, 190 Pro/Enterprise, 110 OAuth apps). */
  HUBSPOT_CALLS_PER_10S: int(1, 1_000, 100),
  HUBSPOT_TIMEOUT_MS: int(100, 120_000, 30_000),

  SALESFORCE_INSTANCE_URL: url.optional(),
  SALESFORCE_LOGIN_URL: url.default('https://login.salesforce.com'),
  SALESFORCE_CLIENT_ID: secret.optional(),
  SALESFORCE_CLIENT_SECRET: secret.optional(),
  SALESFORCE_REFRESH_TOKEN: secret.optional(),
  SALESFORCE_ORG_ID: z
    .string()
    .trim()
    .regex(/^00D[a-zA-Z0-9]{12}(?:[a-zA-Z0-9]{3})?$/, 'must be the org id (00D…, 15 or 18 characters)')
    .optional(),
  SALESFORCE_EVENTS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const items = [
        ...new Set(
          (v ?? 'outbound')
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        ),
      ];
      const bad = items.filter((i) => i !== 'outbound' && i !== 'cdc');
      if (bad.length || !items.length)
        ctx.addIssue({ code: 'custom', message: 'must be outbound, cdc or outbound,cdc' });
      return items as ('outbound' | 'cdc')[];
    }),
  SALESFORCE_NOTES: z.enum(['task', 'content-note']).default('task'),
  SALESFORCE_API_VERSION: z
    .string()
    .regex(/^\d{2}\.0$/, 'must look like 62.0')
    .default('62.0'),

  /** Encrypts the tokens of tenants kept in Redis (AES-256-GCM): 32 random bytes, base64. */
  TOKEN_ENCRYPTION_KEY: z
    .string()
    .trim()
    .optional()
    .refine((v) => v === undefined || Buffer.from(v, 'base64').length === 32, {
      message: 'must be 32 bytes, base64-encoded (e.g. `openssl rand -base64 32`)',
    }),
  PUBLIC_BASE_URL: url.optional(),
  API_KEYS: secretList(24, 'each key must be at least 24 characters'),
  SALESFORCE_REFRESH_SECRETS: secretList(32, 'each secret must be at least 32 characters'),
  HOST: z.string().default('0.0.0.0'),
  PORT: int(0, 65_535, 3000),

  /** Optional YAML/JSON file with the mapping, thresholds and schedules (see config.example.yaml). */
  CONFIG_FILE: z.string().optional(),
  MAPPING_FILE: z.string().optional(),
  MATCH_ACCEPT_THRESHOLD: ratio(0.75),
  MATCH_AMBIGUITY_MARGIN: ratio(0.1),

  SIGNALS_FILTER_TYPES: list(SIGNAL_FILTER_TYPES),
  SIGNALS_STATUS: list(ROW_STATUSES),
  SIGNALS_PERIOD: z.enum(RELATIVE_DATE_PERIODS).default('LastThreeMonths'),
  SIGNALS_SORT: z.enum(SIGNAL_SORTS).default('Date'),
  SIGNALS_MAX_NOTES_PER_RUN: int(0, 100, 5),

  SCHEDULE_TZ: timeZone.default('UTC'),
  /** Re-enrich every matched account: a cron pattern, or off. Default Sundays 04:00. */
  REENRICH_CRON: cronOrOff('0 4 * * 0'),

  WORKER_CONCURRENCY: int(1, 500, 20),
  ENRICH_ATTEMPTS: int(1, 50, 8),
  WRITE_BATCH_WAIT_MS: int(0, 60_000, 250),

  ADMIN_USERNAME: z.string().trim().min(1).optional(),
  ADMIN_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),

  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** The validated environment; the DIGEST_* variables come out as one settings object. */
export type Env = z.output<typeof envSchema> & { digest: DigestSettings };

export class ConfigError extends IntegrationError {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`, { permanent: true });
    this.problems = problems;
  }
}

/** A CRM is configured by a group of variables: all of them, or none. */
export const CRM_GROUPS = {
  HubSpot: ['HUBSPOT_ACCESS_TOKEN', 'HUBSPOT_PORTAL_ID', 'HUBSPOT_CLIENT_SECRET'],
  Salesforce: [
    'SALESFORCE_INSTANCE_URL',
    'SALESFORCE_CLIENT_ID',
    'SALESFORCE_CLIENT_SECRET',
    'SALESFORCE_REFRESH_TOKEN',
    'SALESFORCE_ORG_ID',
  ],
} as const;

function crmGroupProblems(present: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if ((present.ADMIN_USERNAME === undefined) !== (present.ADMIN_PASSWORD === undefined))
    problems.push('ADMIN_USERNAME and ADMIN_PASSWORD go together: set both to serve /admin, or neither');
  const tenants = present.TOKEN_ENCRYPTION_KEY !== undefined;
  // With tenants in Redis, only the apps' own credentials come from the environment.
  const perTenant: Record<string, readonly string[]> = {
    HubSpot: ['HUBSPOT_ACCESS_TOKEN', 'HUBSPOT_PORTAL_ID'],
    Salesforce: ['SALESFORCE_INSTANCE_URL', 'SALESFORCE_REFRESH_TOKEN', 'SALESFORCE_ORG_ID'],
  };
  const configured = Object.entries(CRM_GROUPS).filter(([crm, names]) =>
    names.some((n) => present[n] !== undefined && (!tenants || perTenant[crm]?.includes(n))),
  );
  for (const [crm, names] of configured) {
    for (const n of names)
      if (present[n] === undefined) problems.push(`${n} is required (${crm} is configured)`);
  }
  const apps = Object.entries(CRM_GROUPS).filter(([crm, names]) =>
    names.some((n) => present[n] !== undefined && !perTenant[crm]?.includes(n)),
  );
  if (!configured.length && !(tenants && apps.length)) {
    problems.push(
      `no CRM configured: set ${CRM_GROUPS.HubSpot.join(', ')} for HubSpot and/or ${CRM_GROUPS.Salesforce.join(', ')} for Salesforce, or TOKEN_ENCRYPTION_KEY with the apps' client credentials for tenants kept in Redis`,
    );
  }
  return problems;
}

/** Validates the environment; throws one ConfigError naming every bad or missing variable. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  // An empty variable counts as unset, as in most deployment tools.
  const fromEnv = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const file = fromEnv.CONFIG_FILE ? readConfigFile(String(fromEnv.CONFIG_FILE)) : undefined;
  const present: Record<string, unknown> = { ...file?.values, ...fromEnv };
  const where = (name: string) => {
    const key = file?.origin[name];
    return key && fromEnv[name] === undefined ? ` (${key} in CONFIG_FILE)` : '';
  };
  const parsed = envSchema.safeParse(present);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '(environment)');
        const message =
          issue.code === 'invalid_type' && present[name] === undefined ? 'is required' : issue.message;
        return `${name}${where(name)} ${message}`;
      });
  problems.push(...(file?.problems ?? []));
  problems.push(...crmGroupProblems(present));
  let digest: DigestSettings = {};
  try {
    digest = digestSettingsFromEnv(present as Record<string, string>);
  } catch (err) {
    problems.push(`DIGEST_* variables: ${(err as Error).message}`);
  }
  if (parsed.success && !problems.length) return { ...parsed.data, digest };
  throw new ConfigError([...new Set(problems)]);
}
