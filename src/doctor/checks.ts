// Size: one check per dependency (config, Redis ×4, Buyer Intelligence, each CRM), each a few lines.
// The checks of `buyer-intel-sync doctor`: each one talks to one dependency the way the service will
// and says pass, warn or fail with a line an operator can act on. No check prints a secret (the CLI
// also redacts every secret value from what it prints, as a second line of defence).
import { Cluster, type Redis } from 'ioredis';
import { CRMS } from '../../connectors/registry.ts';
import { pingRedis, probeClient, RedisUnavailableError } from '../../queues/redis.ts';
import { nodesOf } from '../../queues/redis-url.ts';
import { BuyerIntelClient } from '../buyer-intel/client.ts';
import {
  AuthenticationError,
  ConnectionError,
  PermissionDeniedError,
  TimeoutError,
} from '../buyer-intel/errors.ts';
import { crmFeatures } from '../config/crm-features.ts';
import { coreSchema, type Env } from '../config/env.ts';
import { followUpSettings } from '../follow-ups/settings.ts';
import { withTimeout } from '../shared/deadline.ts';
import { redact, secretsOf } from '../shared/secrets.ts';
import { modeCheck, parseInfo, worstOf } from './redis-mode.ts';
import { permissionsCheck } from './redis-permissions.ts';
import type { CheckResult } from './result.ts';

export { parseInfo, redact, secretsOf, withTimeout };

/** BullMQ needs Redis 6.2 or newer. */
export const MIN_REDIS_VERSION = '6.2.0';
export const DEFAULT_CHECK_TIMEOUT_MS = 15_000;

/** -1, 0 or 1 for dotted numeric versions ("7.0.15" vs "6.2"). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((n) => Number.parseInt(n, 10) || 0);
  const pb = b.split('.').map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return Math.sign(d);
  }
  return 0;
}

/** The Redis URL without user or password. */
export function safeRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname && u.pathname !== '/' ? u.pathname : ''}`;
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

/**
 * What is wrong with REDIS_URL as set (the same rule as the configuration's), or undefined when it is
 * a Redis URL. The value is shown only when it cannot hold a password.
 */
export function redisUrlProblem(raw: string): string | undefined {
  const verdict = coreSchema.shape.REDIS_URL.safeParse(raw);
  if (verdict.success) return undefined;
  const rule = verdict.error.issues[0]?.message ?? 'must be a redis:// or rediss:// URL';
  const shown = raw.includes('@') ? 'a value with credentials, not shown' : JSON.stringify(raw);
  return `REDIS_URL ${rule}, got ${shown}`;
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** CONFIG GET one parameter; undefined when CONFIG is disabled, renamed or not permitted (NOPERM). */
async function configGet(redis: Redis, name: string): Promise<string | undefined> {
  try {
    const reply = (await redis.call('CONFIG', 'GET', name)) as string[];
    return reply[1];
  } catch {
    return undefined;
  }
}

/**
 * Connection (PING), server version, eviction policy and persistence: four results. Connection
 * failure fails the first and skips the rest.
 */
export async function checkRedis(
  url: string,
  timeoutMs = DEFAULT_CHECK_TIMEOUT_MS,
  prefix = 'bis',
): Promise<CheckResult[]> {
  const where = safeRedisUrl(url);
  const names = {
    ping: 'redis',
    mode: 'redis mode',
    permissions: 'redis permissions',
    version: 'redis version',
    eviction: 'redis maxmemory-policy',
    persistence: 'redis persistence',
  };
  const skipped = (detail: string) =>
    [names.mode, names.permissions, names.version, names.eviction, names.persistence].map(
      (name): CheckResult => ({ name, status: 'skip', detail }),
    );
  // The same PING every command starts with, so doctor and a failing command name the same cause.
  try {
    await pingRedis(url, Math.min(timeoutMs, 5_000));
  } catch (err) {
    if (!(err instanceof RedisUnavailableError)) throw err;
    return [
      { name: names.ping, status: 'fail', detail: `cannot reach ${where}: ${err.reason}` },
      ...skipped('Redis is not reachable'),
    ];
  }
  const redis = probeClient(url, Math.min(timeoutMs, 5_000));
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => {
    lastError = err;
  });
  try {
    let pong: string;
    try {
      await withTimeout(redis.connect(), timeoutMs, 'connect');
      pong = await withTimeout(redis.ping(), timeoutMs, 'PING');
    } catch (err) {
      const why =
        lastError && lastError.message !== reason(err)
          ? `${reason(err)} (${lastError.message})`
          : reason(err);
      return [
        { name: names.ping, status: 'fail', detail: `cannot reach ${where}: ${why}` },
        ...skipped('Redis is not reachable'),
      ];
    }
    const results: CheckResult[] = [
      { name: names.ping, status: pong === 'PONG' ? 'pass' : 'fail', detail: `${pong} from ${where}` },
    ];

    results.push(await modeCheck(redis, url, prefix, names.mode));
    results.push(await permissionsCheck(redis, prefix, names.permissions));
    // On a cluster every master holds keys, and each replica becomes a master on a failover: every
    // one must keep them (the worst node's answer is shown, naming it).
    const replicas = await replicasOf(redis, url, timeoutMs);
    try {
      const nodes = [...nodesOf(redis), ...replicas];
      const perNode = await Promise.all(nodes.map((node) => nodeChecks(node, names)));
      results.push(...worstOf(perNode, nodes));
    } finally {
      for (const r of replicas) r.disconnect();
    }
    return results;
  } finally {
    redis.disconnect();
  }
}

/** REDIS_URL pointed at one node of its cluster: same user, password and TLS, no cluster options. */
function nodeUrl(url: string, host: string, port: string): string {
  const u = new URL(url);
  u.hostname = host.includes(':') ? `[${host}]` : host;
  u.port = port;
  u.searchParams.delete('cluster');
  u.searchParams.delete('nodes');
  return u.toString();
}

/**
 * A cluster's replicas, connected one by one (none for a standalone Redis, whose replicas a URL does
 * not name). From CLUSTER NODES: CLUSTER SLOTS, and so ioredis' pool, leaves out a replica that has
 * not caught up, and that is the one to look at. A replica that does not answer is left out: the
 * mode check already says what a failing node does to the cluster.
 */
async function replicasOf(redis: Redis, url: string, timeoutMs: number): Promise<Redis[]> {
  if (!(redis instanceof Cluster)) return [];
  const listing = String(await (redis as Cluster).call('CLUSTER', 'NODES').catch(() => ''));
  const addresses = listing
    .split('\n')
    .map((line) => line.split(' '))
    .filter((f) => f[2]?.split(',').includes('slave') && !f[2].includes('fail'))
    .map((f) => /^(.+):(\d+)@/.exec(f[1] ?? ''))
    .filter((m): m is RegExpExecArray => m !== null);
  const connected = await Promise.all(
    addresses.map(async ([, host, port]) => {
      // The URL's credentials and TLS, aimed at the replica alone (not as a cluster).
      const node = probeClient(nodeUrl(url, host ?? '', port ?? ''), Math.min(timeoutMs, 5_000));
      node.on('error', () => undefined);
      return node.connect().then(
        () => node,
        () => {
          node.disconnect();
          return undefined;
        },
      );
    }),
  );
  return connected.filter((n): n is Redis => n !== undefined);
}

/** Version, eviction policy and persistence of one Redis node. */
async function nodeChecks(
  redis: Redis,
  names: { version: string; eviction: string; persistence: string },
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  // INFO may be refused to an ACL user (`redis permissions` names it): every check below says so.
  const info = (section: string) => redis.info(section).catch(() => '');
  const server = parseInfo(await info('server'));
  const version = server.get('redis_version');
  if (!server.size) {
    results.push({ name: names.version, status: 'warn', detail: 'cannot check (INFO is not permitted)' });
  } else if (!version) {
    results.push({ name: names.version, status: 'warn', detail: 'INFO server shows no redis_version' });
  } else {
    const ok = compareVersions(version, MIN_REDIS_VERSION) >= 0;
    results.push({
      name: names.version,
      status: ok ? 'pass' : 'fail',
      detail: ok ? `${version} (≥ 6.2)` : `${version}: BullMQ needs Redis 6.2 or newer`,
    });
  }

  // CONFIG is often disabled on managed Redis; INFO memory shows the policy as well.
  const memory = parseInfo(await info('memory'));
  const policy = (await configGet(redis, 'maxmemory-policy')) ?? memory.get('maxmemory_policy');
  if (policy === undefined) {
    results.push({
      name: names.eviction,
      status: 'warn',
      detail:
        'cannot check (neither CONFIG GET nor INFO is permitted); BullMQ needs maxmemory-policy noeviction',
    });
  } else if (policy === 'noeviction') {
    results.push({ name: names.eviction, status: 'pass', detail: 'noeviction' });
  } else {
    results.push({
      name: names.eviction,
      status: 'fail',
      detail: `${policy}: Redis may evict queue keys and lose jobs; BullMQ needs noeviction (--maxmemory-policy noeviction)`,
    });
  }

  const appendonly = await configGet(redis, 'appendonly');
  const save = await configGet(redis, 'save');
  if (appendonly === 'yes') {
    const fsync = await configGet(redis, 'appendfsync');
    results.push({
      name: names.persistence,
      status: 'pass',
      detail: `AOF on${fsync ? ` (appendfsync ${fsync})` : ''}`,
    });
  } else if (save?.trim()) {
    results.push({
      name: names.persistence,
      status: 'pass',
      detail: `RDB snapshots (save ${save.trim()}); jobs queued since the last snapshot are lost on a crash — AOF (--appendonly yes) is safer`,
    });
  } else if (appendonly === undefined && save === undefined) {
    const persistence = parseInfo(await info('persistence'));
    results.push(
      persistence.get('aof_enabled') === '1'
        ? { name: names.persistence, status: 'pass', detail: 'AOF on (INFO persistence)' }
        : {
            name: names.persistence,
            status: 'warn',
            detail: persistence.size
              ? 'cannot check (CONFIG GET is disabled here) and AOF is off; make sure the provider persists data'
              : 'cannot check (neither CONFIG GET nor INFO is permitted); make sure the provider persists data',
          },
    );
  } else {
    results.push({
      name: names.persistence,
      status: 'warn',
      detail: 'no AOF and no RDB snapshots: queued jobs are lost when Redis restarts (use --appendonly yes)',
    });
  }
  return results;
}

/**
 * One cheap authenticated read: the organization's top recent signals, one per page (a documented
 * operation that needs no id). 401 means the token is wrong.
 */
export async function checkBuyerIntel(env: Env, timeoutMs = DEFAULT_CHECK_TIMEOUT_MS): Promise<CheckResult> {
  const name = 'buyer intelligence api';
  const client = new BuyerIntelClient({
    baseUrl: env.BUYER_INTEL_BASE_URL,
    token: env.BUYER_INTEL_TOKEN,
    timeoutMs: Math.min(env.BUYER_INTEL_TIMEOUT_MS, timeoutMs),
    retry: { maxAttempts: 1 },
    rateLimit: false,
  });
  const started = performance.now();
  try {
    await withTimeout(client.listTopRecentSignals({ pageSize: 1 }), timeoutMs, 'listTopRecentSignals');
    const ms = Math.round(performance.now() - started);
    return {
      name,
      status: 'pass',
      detail: `authenticated read OK at ${env.BUYER_INTEL_BASE_URL} (listTopRecentSignals, ${ms} ms)`,
    };
  } catch (err) {
    if (err instanceof AuthenticationError)
      return {
        name,
        status: 'fail',
        detail: `HTTP 401 from ${env.BUYER_INTEL_BASE_URL}: BUYER_INTEL_TOKEN was refused (wrong, revoked or expired token)`,
      };
    if (err instanceof PermissionDeniedError)
      return {
        name,
        status: 'warn',
        detail: `the token was accepted but HTTP 403 on listTopRecentSignals: ask the provider which operations it may call`,
      };
    // A connection failure names the URL and the cause itself; an HTTP answer does not.
    const named = err instanceof ConnectionError || err instanceof TimeoutError;
    return {
      name,
      status: 'fail',
      detail: named ? reason(err) : `${env.BUYER_INTEL_BASE_URL}: ${reason(err)}`,
    };
  }
}

/** Each CRM's own check (one real read with the configured credentials); skip when not configured. */
export function checkCrms(env: Env, timeoutMs = DEFAULT_CHECK_TIMEOUT_MS): Promise<CheckResult>[] {
  const features = crmFeatures({
    signals: { maxNotesPerRun: env.SIGNALS_MAX_NOTES_PER_RUN },
    followUps: followUpSettings(env),
    digest: env.digest,
  });
  return CRMS.map(async (crm): Promise<CheckResult> => {
    const config = env.crms[crm.kind];
    if (config === undefined || !crm.doctor)
      return { name: crm.kind, status: 'skip', detail: 'not configured' };
    try {
      return { name: crm.kind, ...(await crm.doctor(config, timeoutMs, features)) };
    } catch (err) {
      return { name: crm.kind, status: 'fail', detail: reason(err) };
    }
  });
}
