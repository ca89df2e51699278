// doctor's Redis checks reach a cluster's replicas too: each becomes a master on a failover, so a
// replica that evicts keys (allkeys-lru) fails the eviction check, naming that node, while every master
// is configured as BullMQ needs; and when a master and its replica are both down, the ping check names
// the slots nobody serves and both nodes, not a timeout at the seed that answers. Runs on a 3-master
// cluster of its own with one replica each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRedis } from '../../src/doctor/checks.ts';
import { eventually } from '../helpers/poll.ts';
import { type PrivateCluster, privateCluster } from '../helpers/private-cluster.ts';

let cluster: PrivateCluster;
beforeAll(async () => {
  cluster = await privateCluster();
}, 90_000);
afterAll(async () => {
  await cluster?.remove();
});

describe('doctor on a cluster with replicas', () => {
  it('fails the eviction check for a replica that evicts, naming it', async () => {
    const url = `redis://127.0.0.1:${cluster.ports[0]}?cluster=true`;
    const eviction = async () =>
      (await checkRedis(url, 10_000, '{bis}')).find((r) => r.name === 'redis maxmemory-policy');
    expect(await eviction()).toMatchObject({ status: 'pass', detail: 'noeviction' });

    const replica = await (async () => {
      for (const port of cluster.ports)
        if ((await cluster.cli(port, 'info', 'replication')).includes('role:slave')) return port;
      throw new Error('no replica');
    })();
    await cluster.cli(replica, 'config', 'set', 'maxmemory-policy', 'allkeys-lru');
    const after = await eviction();
    expect(after?.status).toBe('fail');
    expect(after?.detail).toContain(`127.0.0.1:${replica}: allkeys-lru`);
  }, 60_000);

  it('names the slots and both nodes when a master and its replica are down', async () => {
    const seed = cluster.ports[0] ?? 0;
    const nodes = (await cluster.cli(seed, 'cluster', 'nodes')).split('\n').map((l) => l.split(' '));
    const portOf = (f: string[] | undefined) => Number(f?.[1]?.split('@')[0]?.split(':')[1]);
    const master = nodes.find((f) => f[2]?.includes('master') && portOf(f) !== seed);
    const replica = nodes.find((f) => f[3] === master?.[0]);
    const [mp, rp] = [portOf(master), portOf(replica)];
    await cluster.kill(mp);
    await cluster.kill(rp);
    const url = `redis://127.0.0.1:${seed}?cluster=true`;
    const ping = await eventually(
      async () => {
        const result = (await checkRedis(url, 3_000, '{bis}')).find((r) => r.name === 'redis');
        return result?.detail.includes('cluster is down') ? result : undefined;
      },
      'the cluster marks the pair failed',
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(ping.status).toBe('fail');
    expect(ping.detail).toContain(`master 127.0.0.1:${mp} and its replica 127.0.0.1:${rp} are both failing`);
  }, 60_000);
});
