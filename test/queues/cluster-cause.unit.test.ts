// The cause a command gives when a Redis Cluster refuses: read from one live node's CLUSTER INFO and
// CLUSTER NODES (the lines below are a real 3+3 cluster's, with a master and its replica killed).
import { describe, expect, it } from 'vitest';
import { describeClusterDown, parseClusterNodes } from '../../queues/cluster-cause.ts';

const NODES = [
  'a5256f80 127.0.0.1:34239@44239 master,fail - 1796195212139 1796195212139 3 disconnected 10923-16383',
  '549d9f22 127.0.0.1:37945@47945 slave c99c926f 0 1796195212139 2 connected',
  '37769f61 127.0.0.1:42633@52633 slave,fail a5256f80 1796195212249 1796195212249 3 disconnected',
  'bdd88681 127.0.0.1:35735@45735 myself,master - 0 1796195212000 1 connected 0-5460',
  'c99c926f 127.0.0.1:33745@43745 master - 0 1796195212139 2 connected 5461-10922',
  'ddd43c2b 127.0.0.1:41973@51973 slave bdd88681 0 1796195212139 1 connected',
].join('\n');

describe('why a cluster refuses', () => {
  it('names the slots and both nodes when a master and its replica are down', () => {
    expect(describeClusterDown('cluster_state:fail\r\ncluster_slots_ok:10923\r\n', NODES)).toBe(
      'the cluster is down (cluster_state:fail): slots 10923-16383: master 127.0.0.1:34239 and its replica 127.0.0.1:42633 are both failing',
    );
  });

  it('says a failover is pending while the replica is alive', () => {
    const pending = NODES.replace('slave,fail a5256f80', 'slave a5256f80');
    expect(describeClusterDown('cluster_state:fail\r\n', pending)).toContain(
      'master 127.0.0.1:34239 is failing and its replica 127.0.0.1:42633 has not taken over yet',
    );
  });

  it('says nothing when the cluster is ok', () => {
    expect(describeClusterDown('cluster_state:ok\r\n', NODES)).toBeUndefined();
  });

  it('reads addresses without the bus port and skips importing/migrating slot markers', () => {
    const [node] = parseClusterNodes(
      'id1 10.0.0.1:6379@16379,redis-1 master - 0 0 1 connected 0-100 [101->-id2]',
    );
    expect(node).toEqual({
      id: 'id1',
      address: '10.0.0.1:6379',
      flags: ['master'],
      masterId: '-',
      slots: ['0-100'],
    });
  });
});
