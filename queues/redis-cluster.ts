// An ioredis Cluster that remembers every node it has seen as a startup node (issue 44, item 1).
//
// ioredis starts each full (re)connect of a Cluster from its startup nodes alone: connect() resets
// its pool to them and asks them for CLUSTER SLOTS, and duplicate() copies them. With REDIS_URL
// naming one seed, that list is the seed forever. While the client stays connected the seed may die
// (the pool knows every node and follows the failover), but anything that reconnects the cluster
// from scratch is stuck until the seed comes back, repeating "None of startup nodes is available":
// BullMQ does exactly that to its blocking connections (duplicates of ours) when a blocking command
// outlives its watchdog or the node pool empties (RedisConnection.reconnectCluster,
// resetBlockedConnection). Remembering the nodes the cluster announced — masters and replicas, as
// the replica of a dead seed is the one that takes over — lets any of them start the next connect.
import { Cluster, type ClusterNode, type ClusterOptions } from 'ioredis';

type Address = { host: string; port: number };

export class RememberingCluster extends Cluster {
  constructor(startupNodes: Address[], options: ClusterOptions) {
    super(startupNodes, options);
    // +node: a node joined the pool (CLUSTER SLOTS, a MOVED); refresh: a new slot map; ready: both
    // done. Any of them may bring a node we have not seen.
    const remember = () => this.rememberNodes();
    this.on('+node', remember);
    this.on('refresh', remember);
    this.on('ready', remember);
  }

  /**
   * connect(), settled by what the cluster does next. ioredis (5.x, cluster/index.js) stops listening
   * for 'close' once CLUSTER SLOTS answered; when the ready check after it then fails (a frozen node
   * that is still in the slot map, mid-failover), ioredis reconnects internally and this promise is
   * never settled. BullMQ awaits it when it resets a blocking connection (RedisConnection.reconnect),
   * so the worker stopped taking jobs for good (cluster-seed-failover.test.ts: 2 of ~30 runs under
   * load; 0 of 24 with this). The cluster's later 'ready' resolves it; 'end' (it gave up) rejects it.
   */
  override connect(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (done: () => void) => {
        if (settled) return;
        settled = true;
        this.off('ready', onReady);
        this.off('end', onEnd);
        done();
      };
      // ioredis emits a status on the next tick: an event whose status is already gone belongs to
      // an earlier connection (a disconnect just before this connect), not to this one.
      const onReady = () => this.status === 'ready' && settle(resolve);
      const onEnd = () => this.status === 'end' && settle(() => reject(new Error('Connection is closed.')));
      this.on('ready', onReady);
      this.on('end', onEnd);
      super.connect().then(
        () => settle(resolve),
        (err: unknown) => settle(() => reject(err)),
      );
    });
  }

  /** The startup nodes now: the URL's seeds first, then every node seen since. */
  knownNodes(): Address[] {
    return [...this.seeds()];
  }

  /**
   * The same kind of client with the nodes known now, so that BullMQ's blocking connections (made
   * with duplicate(), often before a failover) reconnect through a live node too.
   */
  override duplicate(
    overrideStartupNodes: ClusterNode[] = [],
    overrideOptions: ClusterOptions = {},
  ): Cluster {
    const options = { ...this.options, ...overrideOptions };
    if (overrideStartupNodes.length > 0) return new Cluster(overrideStartupNodes, options);
    return new RememberingCluster(this.knownNodes(), options);
  }

  private rememberNodes(): void {
    const known = this.seeds();
    for (const node of this.nodes('all')) {
      const { host, port } = node.options;
      if (host === undefined || port === undefined) continue;
      if (!known.some((k) => k.host === host && k.port === port)) known.push({ host, port });
    }
  }

  /**
   * ioredis keeps the startup nodes in a private field and reads it afresh on every connect(); it
   * offers no setter. We built it from objects (constructor), so it holds Addresses, and growing it
   * in place is what makes the next connect() start from the nodes we learned.
   */
  private seeds(): Address[] {
    return (this as unknown as { startupNodes: Address[] }).startupNodes;
  }
}
