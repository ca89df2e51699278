// REDIS_URL, read the way managed Redis services hand it out: `redis://` or `rediss://` (TLS), an ACL
// user and password in the URL (`rediss://user:password@host:6380`), and in the query
//   cluster=true                   a Redis Cluster: the URL names any node (or a configuration endpoint);
//                                  the others are discovered (CLUSTER SLOTS)
//   nodes=host:port,host:port      a cluster's further seeds: a process that starts while the URL's node
//                                  is down connects through one of these
//   ssl_ca_certs=<file>            CA bundle to verify the server with (default: Node's trusted CAs)
//   ssl_certfile=, ssl_keyfile=    a client certificate and its key (mutual TLS)
//   ssl_servername=<name>          the name the certificate must carry, when the URL names an address
// (the names redis-py uses). A cluster client is an ioredis Cluster, handed around as a Redis: it
// answers the same commands, and every key of this service shares the hash tag of REDIS_PREFIX
// (`{bis}`), so scripts, transactions and pipelines stay within one slot.
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { RememberingCluster } from './redis-cluster.ts';

export interface RedisTarget {
  cluster: boolean;
  host: string;
  port: number;
  /** A cluster's further seeds (`nodes=`), after the URL's own node. */
  seeds: { host: string; port: number }[];
  /** Everything but the retry policy: credentials, database, TLS. */
  options: RedisOptions;
}

const QUERY = ['cluster', 'nodes', 'ssl_ca_certs', 'ssl_certfile', 'ssl_keyfile', 'ssl_servername'] as const;

/** `host:port,host:port` (IPv6 in brackets), each checked. */
function seedsOf(raw: string | undefined): { host: string; port: number }[] {
  if (raw === undefined) return [];
  return raw.split(',').map((item) => {
    const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(item.trim());
    const port = Number(m?.[2]);
    if (!m || port < 1 || port > 65_535)
      throw new Error(`nodes must be host:port items separated by commas, got ${JSON.stringify(item)}`);
    return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port };
  });
}

/** What is wrong with the URL, one problem a line (empty: fine). Reads the certificate files. */
export function redisUrlProblems(url: string): string[] {
  try {
    redisTarget(url);
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

export function redisTarget(url: string): RedisTarget {
  const u = new URL(url);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new Error('must be a redis:// or rediss:// URL');
  for (const key of u.searchParams.keys())
    if (!(QUERY as readonly string[]).includes(key))
      throw new Error(`unknown option ${key} in the query (known: ${QUERY.join(', ')})`);
  const q = (key: (typeof QUERY)[number]) => u.searchParams.get(key) ?? undefined;
  const cluster = q('cluster') === 'true';
  if (q('cluster') !== undefined && !['true', 'false'].includes(q('cluster') ?? ''))
    throw new Error('cluster must be true or false');
  const seeds = seedsOf(q('nodes'));
  if (seeds.length && !cluster) throw new Error('nodes names the seeds of a cluster: add cluster=true');
  const file = (key: (typeof QUERY)[number]) => {
    const path = q(key);
    if (path === undefined) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`${key} ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  };
  const tlsOnly = QUERY.filter((k) => k.startsWith('ssl_') && q(k) !== undefined);
  if (u.protocol === 'redis:' && tlsOnly.length)
    throw new Error(`${tlsOnly.join(', ')} need a rediss:// URL`);
  const db = u.pathname.replace(/^\//, '');
  if (db && !/^\d+$/.test(db)) throw new Error('the path must be a database number (/0)');
  if (cluster && db && db !== '0') throw new Error('a Redis Cluster has database 0 only');
  const ca = file('ssl_ca_certs');
  const cert = file('ssl_certfile');
  const key = file('ssl_keyfile');
  if ((cert === undefined) !== (key === undefined))
    throw new Error('ssl_certfile and ssl_keyfile go together');
  const servername = q('ssl_servername');
  const tls: ConnectionOptions | undefined =
    u.protocol === 'rediss:'
      ? {
          ...(ca ? { ca } : {}),
          ...(cert && key ? { cert, key } : {}),
          ...(servername ? { servername } : {}),
        }
      : undefined;
  return {
    cluster,
    host: u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: Number(u.port || 6379),
    seeds,
    options: {
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(db && !cluster ? { db: Number(db) } : {}),
      ...(tls ? { tls } : {}),
    },
  };
}

/**
 * A client for the URL with these connection options (retries, offline queue, timeouts): a Redis, or
 * a Cluster typed as one (see the top of this file). `retryStrategy: () => null` also stops the
 * cluster from reconnecting; `lazyConnect` and `enableOfflineQueue` apply to the cluster as a whole.
 */
export function redisClient(url: string, connection: RedisOptions = {}): Redis {
  const target = redisTarget(url);
  if (!target.cluster)
    return new Redis({ ...target.options, host: target.host, port: target.port, ...connection });
  const { lazyConnect, enableOfflineQueue, retryStrategy, ...perNode } = connection;
  // A RememberingCluster, not a plain Cluster: once connected, any node it has seen can start its
  // next full reconnect, so the seed may die (redis-cluster.ts).
  const cluster = new RememberingCluster([{ host: target.host, port: target.port }, ...target.seeds], {
    redisOptions: { ...target.options, ...perNode },
    ...(lazyConnect !== undefined ? { lazyConnect } : {}),
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    ...(retryStrategy ? { clusterRetryStrategy: (times: number) => retryStrategy(times) ?? null } : {}),
    // ioredis gives a node 1 s to answer CLUSTER SLOTS; a busy worker host can take longer.
    slotsRefreshTimeout: 5_000,
    // A TLS certificate names the host, not the address each node announces: keep the name.
    ...(target.options.tls ? { dnsLookup: (address, done) => done(null, address) } : {}),
  });
  return cluster as unknown as Redis;
}

/** The master nodes of a cluster client, or the client itself (commands that must reach every node). */
export function nodesOf(redis: Redis): Redis[] {
  return redis instanceof Cluster ? (redis as Cluster).nodes('master') : [redis];
}

/** Whether REDIS_PREFIX keeps every key in one slot of a cluster: it is a hash tag, e.g. `{bis}`. */
export const isHashTag = (prefix: string): boolean => /^\{[^{}]+\}$/.test(prefix);
