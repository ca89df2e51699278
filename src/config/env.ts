// Configuration is read once, from the environment, and validated in one zod schema so that a bad
// configuration lists every problem at start, not the first one. Secrets are never echoed back.
import { z } from 'zod';
import { CRMS } from '../../connectors/registry.ts';
import { isHashTag, redisTarget, redisUrlProblems } from '../../queues/redis-url.ts';
import {
  RELATIVE_DATE_PERIODS,
  ROW_STATUSES,
  SIGNAL_FILTER_TYPES,
  SIGNAL_SORTS,
} from '../buyer-intel/enums.ts';
import { type DigestSettings, digestSettingsFromEnv } from '../digest/settings.ts';
import { followUpVariables } from '../follow-ups/settings.ts';
import {
  checkedList,
  enumList,
  int,
  ratio,
  secret,
  secretList,
  splitList,
  httpUrl as url,
} from '../shared/config-schema.ts';
import { cronOrOff, timeZone } from '../shared/cron.ts';
import { parseHmacSecret, parsePublicKey } from '../signals/standard-webhooks.ts';
import { ConfigError } from './config-error.ts';
import { readConfigFile } from './file.ts';
import { securityVariables } from './security.ts';

const keyList = (parse: (key: string) => unknown, message: string) =>
  checkedList((key) => {
    try {
      parse(key);
      return true;
    } catch {
      return false;
    }
  }, message);

/** The core's variables; each CRM adds its own section (connectors/<crm>/config.ts). */
export const coreSchema = z.object({
  BUYER_INTEL_BASE_URL: url,
  BUYER_INTEL_TOKEN: secret,
  BUYER_INTEL_TIMEOUT_MS: int(100, 120_000, 10_000),
  BUYER_INTEL_MAX_ATTEMPTS: int(1, 10, 4),
  BUYER_INTEL_RATE_PER_SECOND: int(1, 10_000, 10),
  // The provider documents no burst (spec: "thresholds and window: not shown"): requests go evenly. A
  // burst of 20 met a provider that allows none with 20 requests at once, 19 of them 429s (issue 42).
  BUYER_INTEL_BURST: int(1, 10_000, 1),
  BUYER_INTEL_CACHE_TTL_MS: int(0, 86_400_000, 300_000),
  /** How long a search's answer is reused (ms), across workers: every account of a buyer asks it. */
  BUYER_INTEL_SEARCH_CACHE_TTL_MS: int(0, 86_400_000, 600_000),

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

  /** A Redis or a Redis Cluster (`?cluster=true`), TLS and ACL user: queues/redis-url.ts. */
  REDIS_URL: z
    .url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' })
    .superRefine((url, ctx) => {
      for (const message of redisUrlProblems(url)) ctx.addIssue({ code: 'custom', message });
    })
    .default('redis://127.0.0.1:6379'),
  /** Every key's prefix; on a cluster a hash tag (`{bis}`), so each script's keys share one slot. */
  REDIS_PREFIX: z
    .string()
    .regex(/^(\{[a-z0-9_-]+\}|[a-z0-9_-]+)$/i, 'letters, digits, - and _ only, or those in braces: {bis}')
    .default('bis'),

  /** The system of record; unset: the embedded PostgreSQL (PGlite) in PGLITE_DIR, for one process. */
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// or postgresql:// URL' })
    .optional(),
  /** The embedded database's directory (`memory`: none, gone at exit). Ignored with DATABASE_URL. */
  PGLITE_DIR: z.string().trim().min(1).default('.data/pglite'),

  /** Encrypts the tokens of tenants kept in the database (AES-256-GCM): 32 random bytes, base64. */
  TOKEN_ENCRYPTION_KEY: z
    .string()
    .trim()
    .optional()
    .refine((v) => v === undefined || Buffer.from(v, 'base64').length === 32, {
      message: 'must be 32 bytes, base64-encoded (e.g. `openssl rand -base64 32`)',
    }),
  PUBLIC_BASE_URL: url.optional(),
  API_KEYS: secretList(24, 'each key must be at least 24 characters'),
  HOST: z.string().default('0.0.0.0'),
  PORT: int(0, 65_535, 3000),

  /** Optional YAML/JSON file with the mapping, thresholds and schedules (see config.example.yaml). */
  CONFIG_FILE: z.string().optional(),
  MAPPING_FILE: z.string().optional(),
  MATCH_ACCEPT_THRESHOLD: ratio(0.75),
  MATCH_AMBIGUITY_MARGIN: ratio(0.1),

  SIGNALS_FILTER_TYPES: enumList(SIGNAL_FILTER_TYPES),
  SIGNALS_STATUS: enumList(ROW_STATUSES),
  SIGNALS_PERIOD: z.enum(RELATIVE_DATE_PERIODS).default('LastThreeMonths'),
  SIGNALS_SORT: z.enum(SIGNAL_SORTS).default('Date'),
  SIGNALS_MAX_NOTES_PER_RUN: int(0, 100, 5),
  /** Follow-up tasks for the account's owner, and the sweep that closes the loop: src/follow-ups/. */
  ...followUpVariables,

  SCHEDULE_TZ: timeZone.default('UTC'),
  /** Re-enrich every matched account: a cron pattern, or off. Default Sundays 04:00. */
  REENRICH_CRON: cronOrOff('0 4 * * 0'),

  // Jobs wait mostly on upstream calls and shared batches, and the CRM budgets pace the calls: a
  // batch fills only when enough jobs are in flight (bench/README.md: 20 → 5× the calls per account).
  WORKER_CONCURRENCY: int(1, 500, 200),
  ENRICH_ATTEMPTS: int(1, 50, 8),
  /** Accounts per backfill job: BullMQ's per-job cost is paid once for them, and they batch together. */
  BACKFILL_ACCOUNTS_PER_JOB: int(1, 1_000, 100),
  /** Extra linger before a partial write batch leaves (ms); 0: only a batch in flight makes others wait. */
  WRITE_BATCH_WAIT_MS: int(0, 60_000, 0),
  /**
   * The most a backfill account coming out of its Buyer Intelligence calls waits for the others of its
   * chunk, so that they write together (ms; src/batch/lockstep.ts). Webhook and API jobs never wait.
   */
  BACKFILL_BATCH_WAIT_MS: int(0, 60_000, 10_000),
  /** Share of each CRM tenant's daily API allocation backfill leaves to other integrations (0: none). */
  CRM_DAILY_HEADROOM: ratio(0.2),

  ADMIN_USERNAME: z.string().trim().min(1).optional(),
  ADMIN_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),

  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  // Inbound security (metrics, API docs, the per-account window of inbound events): src/config/security.ts.
  ...securityVariables,
});

/** Built when read, from the CRMs registered by then (a test may register one: connectors/registry.ts). */
const envSchema = () =>
  z.object({
    ...coreSchema.shape,
    ...Object.assign({}, ...CRMS.map((crm) => crm.config.variables)),
  });

/**
 * The validated environment: the core's variables, the DIGEST_* variables as one settings object, and
 * each configured CRM's settings by kind (opaque here; only that CRM's descriptor reads them).
 */
export type Env = z.output<typeof coreSchema> & {
  digest: DigestSettings;
  crms: Record<string, unknown>;
  /** Every variable as validated, the CRMs' included (for `doctor`'s summary and redaction). */
  vars: Record<string, unknown>;
};

/** Each CRM reads its own section; at least one must be configured. */
function crmSettings(vars: Record<string, unknown>): { crms: Record<string, unknown>; problems: string[] } {
  const problems: string[] = [];
  if ((vars.ADMIN_USERNAME === undefined) !== (vars.ADMIN_PASSWORD === undefined))
    problems.push('ADMIN_USERNAME and ADMIN_PASSWORD go together: set both to serve /admin, or neither');
  const tenantsInRedis = vars.TOKEN_ENCRYPTION_KEY !== undefined;
  const crms: Record<string, unknown> = {};
  for (const crm of CRMS) {
    const read = crm.config.read(vars, { tenantsInRedis });
    problems.push(...read.problems);
    if (read.config !== undefined) crms[crm.kind] = read.config;
  }
  if (!Object.keys(crms).length && !problems.length)
    problems.push(
      `no CRM configured: set ${CRMS.map((c) => c.config.hint).join(' and/or ')}, or TOKEN_ENCRYPTION_KEY with the apps' client credentials for tenants kept in the database`,
    );
  return { crms, problems };
}

/** The variables set (an empty one counts as unset, as in most deployment tools), CONFIG_FILE's under them. */
function gather(source: NodeJS.ProcessEnv) {
  const fromEnv = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const file = fromEnv.CONFIG_FILE ? readConfigFile(String(fromEnv.CONFIG_FILE)) : undefined;
  const present: Record<string, unknown> = { ...file?.values, ...fromEnv };
  const where = (name: string) => {
    const key = file?.origin[name];
    return key && fromEnv[name] === undefined ? ` (${key} in CONFIG_FILE)` : '';
  };
  const problemsOf = (error: z.ZodError) =>
    error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      const message =
        issue.code === 'invalid_type' && present[name] === undefined ? 'is required' : issue.message;
      return `${name}${where(name)} ${message}`;
    });
  return { present, fileProblems: file?.problems ?? [], problemsOf };
}

type CoreVariables = z.output<typeof coreSchema>;

/**
 * Only some of the core's variables, validated as loadEnv validates them (CONFIG_FILE included), for a
 * command that needs no CRM: `match-eval` reads the Buyer Intelligence and match settings alone.
 */
export function loadCoreVariables<K extends keyof CoreVariables & string>(
  keys: readonly K[],
  source: NodeJS.ProcessEnv = process.env,
): Pick<CoreVariables, K> {
  const { present, fileProblems, problemsOf } = gather(source);
  const mask = Object.fromEntries(keys.map((k) => [k, true])) as Partial<Record<keyof CoreVariables, true>>;
  const parsed = coreSchema.pick(mask).safeParse(present);
  const problems = [...(parsed.success ? [] : problemsOf(parsed.error)), ...fileProblems];
  if (parsed.success && !problems.length) return parsed.data as unknown as Pick<CoreVariables, K>;
  throw new ConfigError([...new Set(problems)]);
}

/** Validates the environment; throws one ConfigError naming every bad or missing variable. */
export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const { present, fileProblems, problemsOf } = gather(source);
  const parsed = envSchema().safeParse(present);
  const problems = parsed.success ? [] : problemsOf(parsed.error);
  problems.push(...fileProblems);
  // Presence decides which CRMs are configured; a bad value is already a problem of its own.
  const vars: Record<string, unknown> = parsed.success ? parsed.data : present;
  const { crms, problems: crmProblems } = crmSettings(vars);
  problems.push(...crmProblems);
  const redisUrl = String(vars.REDIS_URL);
  const redisPrefix = String(vars.REDIS_PREFIX);
  if (parsed.success && redisTarget(redisUrl).cluster && !isHashTag(redisPrefix))
    problems.push(
      `REDIS_PREFIX must be a hash tag on a Redis Cluster (REDIS_URL ?cluster=true), e.g. {${redisPrefix}}: BullMQ and the service's scripts need their keys in one slot`,
    );
  let digest: DigestSettings = {};
  try {
    digest = digestSettingsFromEnv(present as Record<string, string>);
  } catch (err) {
    problems.push(`DIGEST_* variables: ${(err as Error).message}`);
  }
  if (parsed.success && !problems.length)
    return { ...(parsed.data as z.output<typeof coreSchema>), digest, crms, vars: parsed.data };
  throw new ConfigError([...new Set(problems)]);
}
