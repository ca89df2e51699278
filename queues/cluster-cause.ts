// Why a Redis Cluster does not answer, asked of its seeds one by one (issue 44, item 4).
//
// When a master and its replica are both down, the cluster stops serving their slots; with the
// default cluster-require-full-coverage it refuses every command (CLUSTERDOWN), and ioredis' Cluster
// keeps retrying until the caller's deadline. What the caller saw is then "timed out" against a seed
// that is alive and answering, which sends the operator to the wrong host. A seed still answers
// CLUSTER INFO and CLUSTER NODES on a plain connection, and those name the slots nobody serves and
// the nodes that should.
import { Redis } from 'ioredis';
import { redisTarget } from './redis-url.ts';

interface NodeLine {
  id: string;
  address: string;
  flags: string[];
  masterId: string;
  slots: string[];
}

/** CLUSTER NODES: `<id> <ip:port@cport[,hostname]> <flags> <master> <ping> <pong> <epoch> <link> <slot>…` */
export function parseClusterNodes(text: string): NodeLine[] {
  return text
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter((f) => f.length >= 8)
    .map((f) => ({
      id: f[0] ?? '',
      address: (f[1] ?? '').split('@')[0] ?? '',
      flags: (f[2] ?? '').split(','),
      masterId: f[3] ?? '-',
      slots: f.slice(8).filter((s) => !s.startsWith('[')),
    }));
}

const failing = (n: NodeLine) => n.flags.includes('fail') || n.flags.includes('fail?');

/**
 * One sentence naming the slots without a live master and the nodes (master and replicas) that are
 * failing, from one node's CLUSTER INFO and CLUSTER NODES; undefined when the cluster says it is ok.
 */
export function describeClusterDown(info: string, nodesText: string): string | undefined {
  const state = /cluster_state:(\w+)/.exec(info)?.[1];
  if (state === undefined || state === 'ok') return undefined;
  const nodes = parseClusterNodes(nodesText);
  const parts = nodes
    .filter((n) => n.flags.includes('master') && failing(n) && n.slots.length > 0)
    .map((m) => {
      const replicas = nodes.filter((r) => r.masterId === m.id);
      const live = replicas.filter((r) => !failing(r));
      const who =
        replicas.length === 0
          ? `master ${m.address}, which has no replica, is failing`
          : live.length === 0
            ? replicas.length === 1
              ? `master ${m.address} and its replica ${replicas[0]?.address} are both failing`
              : `master ${m.address} and its replicas ${replicas.map((r) => r.address).join(', ')} are all failing`
            : `master ${m.address} is failing and its replica ${live.map((r) => r.address).join(', ')} has not taken over yet`;
      return `slots ${m.slots.join(' ')}: ${who}`;
    });
  const detail = parts.length ? parts.join('; ') : 'some slots have no master';
  return `the cluster is down (cluster_state:${state}): ${detail}`;
}

/**
 * Asks each seed of a cluster URL, on a plain connection, why the cluster refuses; undefined when no
 * seed answers or every seed says the cluster is fine (the cause lies elsewhere).
 */
export async function clusterDownCause(url: string, timeoutMs: number): Promise<string | undefined> {
  const target = redisTarget(url);
  if (!target.cluster) return undefined;
  for (const seed of [{ host: target.host, port: target.port }, ...target.seeds]) {
    const node = new Redis({
      ...target.options,
      ...seed,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: timeoutMs,
    });
    node.on('error', () => undefined);
    try {
      await node.connect();
      const [info, nodes] = await Promise.all([
        node.call('CLUSTER', 'INFO') as Promise<string>,
        node.call('CLUSTER', 'NODES') as Promise<string>,
      ]);
      const cause = describeClusterDown(info, nodes);
      if (cause) return cause;
    } catch {
      // This seed does not answer either; ask the next.
    } finally {
      node.disconnect();
    }
  }
  return undefined;
}
