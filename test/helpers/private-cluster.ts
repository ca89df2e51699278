// A Redis Cluster of a test's own: 3 masters with one replica each, so a master can die and its
// replica take over (the shared cluster of `npm run test:cluster` has no replicas, and killing one of
// its nodes would break every other file's tests). `--cluster-node-timeout 2000` lets a failover
// finish in a few seconds. Each node is a child process of the test (not daemonized), so `kill()`
// is a real SIGKILL and `remove()` can be sure nothing is left behind.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './poll.ts';
import { freePort } from './ports.ts';

const run = promisify(execFile);

export interface PrivateCluster {
  ports: number[];
  /** `redis-cli -p <port> <args>`, its output trimmed. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The port of the master that serves `key`'s slot, as `via` sees it. */
  masterOf(key: string, via: number): Promise<number>;
  /**
   * SIGSTOP: the node goes silent, as a host that lost power or its network does: open connections
   * hang instead of being refused, and the cluster fails it over after the node timeout.
   */
  freeze(port: number): void;
  /** SIGKILL: the node is gone; connecting to it is refused. */
  kill(port: number): Promise<void>;
  remove(): Promise<void>;
}

/** A redis-server of a test's own as a cluster node: on 127.0.0.1, its files in `dir`, no snapshots. */
export const clusterNodeArgs = (port: number, dir: string): string[] => [
  '--port',
  String(port),
  '--bind',
  '127.0.0.1',
  '--dir',
  dir,
  '--cluster-enabled',
  'yes',
  '--save',
  '',
];

export async function privateCluster(): Promise<PrivateCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'bis-cluster-'));
  const ports: number[] = [];
  // freePort may hand out the same port twice when nothing listens on it yet: ask until 6 differ.
  // Each node also listens on port + 10000 (the cluster bus), which must stay a valid port.
  while (ports.length < 6) {
    const port = await freePort();
    if (!ports.includes(port) && port + 10_000 <= 65_535) ports.push(port);
  }
  const procs = new Map<number, ChildProcess>();
  const cli = async (port: number, ...args: string[]) =>
    (await run('redis-cli', ['-p', String(port), ...args], { timeout: 10_000 })).stdout.trim();
  const cluster: PrivateCluster = {
    ports,
    cli,
    async masterOf(key, via) {
      const slot = Number(await cli(via, 'cluster', 'keyslot', key));
      // CLUSTER SHARDS would be clearer, but Redis 6 lacks it; CLUSTER NODES lines:
      // <id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slot ranges…>
      for (const line of (await cli(via, 'cluster', 'nodes')).split('\n')) {
        const [, address, flags, , , , , link, ...ranges] = line.split(' ');
        if (!flags?.includes('master') || flags.includes('fail') || link !== 'connected') continue;
        for (const range of ranges) {
          const [from, to = from] = range.split('-').map(Number);
          if (from !== undefined && to !== undefined && slot >= from && slot <= to)
            return Number(address?.split('@')[0]?.split(':')[1]);
        }
      }
      throw new Error(`no live master serves slot ${slot} as port ${via} sees it`);
    },
    freeze(port) {
      procs.get(port)?.kill('SIGSTOP');
    },
    async kill(port) {
      const proc = procs.get(port);
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once('exit', () => r()));
      proc.kill('SIGKILL');
      await exited;
    },
    async remove() {
      await Promise.all(ports.map((port) => cluster.kill(port)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    for (const port of ports) {
      const home = join(dir, String(port));
      mkdirSync(home);
      const proc = spawn(
        'redis-server',
        [
          ...clusterNodeArgs(port, home),
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '2000',
          // A replica takes over however long ago it last heard its master: on a loaded machine the
          // first sync can lag, and a replica that judges its data too old never stands for election.
          '--cluster-replica-validity-factor',
          '0',
          '--appendonly',
          'no',
          '--maxmemory-policy',
          'noeviction',
        ],
        { stdio: 'ignore' },
      );
      procs.set(port, proc);
    }
    for (const port of ports)
      await eventually(async () => (await cli(port, 'ping')) === 'PONG', `node ${port} answers`, {
        timeoutMs: 20_000,
        intervalMs: 100,
      });
    // The first three become masters, the last three their replicas (redis-cli's own assignment).
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    // Every node must see the whole cluster healthy, replicas included, before a fault means anything.
    await eventually(
      async () => {
        for (const port of ports) {
          if (!(await cli(port, 'cluster', 'info')).includes('cluster_state:ok')) return false;
          const nodes = (await cli(port, 'cluster', 'nodes')).split('\n');
          if (nodes.length !== 6 || nodes.some((n) => !n.includes(' connected'))) return false;
          if (nodes.filter((n) => n.includes('slave')).length !== 3) return false;
          const replication = await cli(port, 'info', 'replication');
          // A replica that has not finished its first sync cannot serve once promoted.
          if (replication.includes('role:slave') && !replication.includes('master_link_status:up'))
            return false;
        }
        return true;
      },
      'the private cluster reaches state ok with 3 replicas',
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    return cluster;
  } catch (err) {
    await cluster.remove();
    throw err;
  }
}
