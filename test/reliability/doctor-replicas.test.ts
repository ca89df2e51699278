// doctor's Redis checks reach a cluster's replicas too: each becomes a master on a failover, so a
// replica that evicts keys (allkeys-lru) fails the eviction check, naming that node, while every master
// is configured as BullMQ needs. Runs on a 3-master cluster of its own with one replica each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRedis } from '../../src/doctor/checks.ts';
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
});
