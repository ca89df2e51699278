// Fault: on a Redis Cluster of the test's own (3 masters, one replica each), the master REDIS_URL
// names — the seed, made the master of the `{bis}` slot so that every queue lives on it — goes
// silent (SIGSTOP, as a host that lost power: connections hang, nothing is refused), its replica takes
// over, and then it is killed for good. Issue 44, item 1: workers kept reconnecting to the dead seed
// ("None of startup nodes is available") for as long as it was down.
// Asserts: the client, and a duplicate made before the fault that reconnects from scratch (what
// BullMQ does to its blocking connections when a blocking command outlives its watchdog), answer
// again within 15 s of the failover; a BullMQ worker on the client processes jobs added after the
// failover; a process that starts now cannot connect (the only seed it knows is dead: expected, see
// docs/operations.md); ioredis prints no raw stacks to the console.
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createRedis, pingRedis, RedisUnavailableError } from '../../queues/redis.ts';
import { eventually } from '../helpers/poll.ts';
import { type PrivateCluster, privateCluster } from '../helpers/private-cluster.ts';

let cluster: PrivateCluster;
let seed: number;
let seedUrl: string;
let client: Redis;
let early: Redis;
let queue: Queue;
let worker: Worker;
const processed: string[] = [];
const reported: string[] = [];
const consoleErrors = vi.spyOn(console, 'error');

beforeAll(async () => {
  cluster = await privateCluster();
  const first = cluster.ports[0] ?? 0;
  seed = await cluster.masterOf('{bis}:probe', first);
  seedUrl = `redis://127.0.0.1:${seed}?cluster=true`;
  client = createRedis(seedUrl, 'worker', (err) => reported.push(err.message));
  early = client.duplicate();
  early.on('error', () => undefined);
  expect(await early.set('{bis}:probe', 'before')).toBe('OK');
  queue = new Queue('seed-failover', { connection: client, prefix: '{bis}' });
  worker = new Worker(
    'seed-failover',
    async (job) => {
      processed.push(job.name);
    },
    // The enrich worker's own poll (1 s, src/service/enrich-workers.ts): BullMQ's watchdog on the
    // blocking connection fires within the failover, the case that reconnects from startup nodes.
    { connection: client, prefix: '{bis}', drainDelay: 1 },
  );
  worker.on('error', (err) => reported.push(err.message));
  await queue.add('before', {});
  await eventually(() => processed.includes('before'), 'a job before the fault is processed', {
    timeoutMs: 20_000,
  });
}, 90_000);

afterAll(async () => {
  await worker?.close(true).catch(() => undefined);
  await queue?.close().catch(() => undefined);
  early?.disconnect();
  client?.disconnect();
  await cluster?.remove();
  consoleErrors.mockRestore();
});

it('keeps serving after the seed master dies and its replica takes over', async () => {
  const survivor = cluster.ports.find((p) => p !== seed) ?? 0;
  cluster.freeze(seed);
  const promoted = await eventually(
    async () => {
      const master = await cluster.masterOf('{bis}:probe', survivor).catch(() => seed);
      return master !== seed && master;
    },
    "the seed's replica is promoted",
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  expect(promoted).not.toBe(seed);
  await cluster.kill(seed);

  // (a) The client, and the early duplicate reconnected from scratch as BullMQ would.
  const answers = (redis: Redis, value: string) => async () =>
    (await Promise.race([
      redis.set('{bis}:probe', value),
      new Promise((resolve) => setTimeout(resolve, 2_000, 'no answer')),
    ])) === 'OK';
  await eventually(answers(client, 'client'), 'the client answers', { timeoutMs: 15_000, intervalMs: 200 });
  early.disconnect();
  const reconnected = early.connect().then(
    () => 'connected',
    (err: Error) => err.message,
  );
  expect(await reconnected).toBe('connected');
  await eventually(answers(early, 'early'), 'the early duplicate answers', {
    timeoutMs: 15_000,
    intervalMs: 200,
  });

  // (b) Jobs added after the failover are processed by the worker that was there before it.
  for (let i = 0; i < 5; i++) await queue.add(`after-${i}`, {});
  await eventually(
    () => processed.filter((name) => name.startsWith('after-')).length === 5,
    'the 5 jobs added after the failover are processed',
    { timeoutMs: 30_000, intervalMs: 100 },
  );

  // A process starting now knows only the dead seed: it cannot connect, and says so; one whose URL
  // names a second seed (`nodes=`) connects through it.
  const fresh = await pingRedis(seedUrl).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(fresh).toBeInstanceOf(RedisUnavailableError);
  await expect(pingRedis(`${seedUrl}&nodes=127.0.0.1:${survivor}`)).resolves.toBeUndefined();

  const rawStacks = consoleErrors.mock.calls.filter((args) => String(args[0]).includes('[ioredis]'));
  expect(rawStacks).toEqual([]);
}, 120_000);
