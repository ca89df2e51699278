// Shared batch channels across worker processes, on real Redis: each "process" is a channel factory
// with its own connections and process id, as two workers would have.
// @redis-cluster: also runs on a 3-master Redis Cluster (npm run test:cluster).
import type { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AccountNotFoundError, CrmRateLimitError } from '../../connectors/types.ts';
import { classifyFailure } from '../../queues/failure.ts';
import type { OpenChannels } from '../../src/batch/channel.ts';
import { type SharedChannelOptions, sharedChannels } from '../../src/batch/shared.ts';
import { isIntegrationError } from '../../src/shared/errors.ts';
import { eventually } from '../helpers/poll.ts';
import { deleteKeysOf, nodeUrlOf, testPrefix, testRedis } from '../helpers/redis.ts';
import { monitorRedis } from '../helpers/redis-monitor.ts';

const prefix = testPrefix('test-batch-shared');
const connections: Redis[] = [];
const opened: OpenChannels[] = [];

function connect(): Redis {
  const redis = testRedis();
  connections.push(redis);
  return redis;
}

/** One worker process's channels. */
function processChannels(id: string, options: Partial<SharedChannelOptions> = {}): OpenChannels {
  const channels = sharedChannels({
    redis: connect(),
    connectReplies: connect,
    prefix,
    processId: id,
    ...options,
  });
  opened.push(channels);
  return channels;
}

/** A send the test answers by hand, recording which process sent which items. */
function manualSends() {
  const calls: { by: string; items: string[]; release(err?: Error): void }[] = [];
  const sendOf = (by: string) => (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({
        by,
        items,
        release: (err) => (err ? reject(err) : resolve(items.map((i) => `sent ${i} by ${by}`))),
      });
    });
  return { calls, sendOf };
}

const probe = connect();
const waiting = (key: string) => probe.llen(`${prefix}:batch:${key}:q`);

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

afterAll(async () => {
  await deleteKeysOf(probe, prefix);
  for (const c of connections) c.disconnect();
});

describe('shared batch channels', () => {
  it('sends a lone item alone, at once', async () => {
    const a = processChannels('a');
    const sent: string[][] = [];
    const channel = a('lone', {
      maxBatch: 100,
      send: async (items: string[]) => {
        sent.push(items);
        return items.map((i) => `ok ${i}`);
      },
    });
    expect(await channel.submit('x')).toBe('ok x');
    expect(sent).toEqual([['x']]);
  });

  it('one send carries items of two processes, and each submitter gets its own result', async () => {
    const { calls, sendOf } = manualSends();
    const a = processChannels('a')('k1', { maxBatch: 100, send: sendOf('a') });
    const b = processChannels('b')('k1', { maxBatch: 100, send: sendOf('b') });
    const first = a.submit('a1');
    await eventually(() => calls.length === 1, 'the first batch');
    // While a1's batch is in flight, both processes submit.
    const later = [a.submit('a2'), b.submit('b1'), b.submit('b2'), a.submit('a3')];
    await eventually(async () => (await waiting('k1')) === 4, 'four waiting items');
    calls[0]?.release();
    expect(await first).toBe('sent a1 by a');
    await eventually(() => calls.length === 2, 'the second batch');
    expect(calls[1]?.items.sort()).toEqual(['a2', 'a3', 'b1', 'b2']);
    const by = calls[1]?.by;
    calls[1]?.release();
    expect(await Promise.all(later)).toEqual(['a2', 'b1', 'b2', 'a3'].map((i) => `sent ${i} by ${by}`));
    expect(calls).toHaveLength(2);
  });

  it('respects maxBatch, across processes', async () => {
    const sent: string[][] = [];
    const send = async (items: string[]) => {
      sent.push(items);
      await new Promise((r) => setTimeout(r, 5));
      return items;
    };
    const a = processChannels('a')('k2', { maxBatch: 3, send });
    const b = processChannels('b')('k2', { maxBatch: 3, send });
    const items = Array.from({ length: 20 }, (_, i) => `i${i}`);
    const results = await Promise.all(items.map((i, n) => (n % 2 ? a : b).submit(i)));
    expect(results).toEqual(items);
    expect(sent.flat().sort()).toEqual([...items].sort());
    expect(sent.every((batch) => batch.length <= 3)).toBe(true);
  });

  it('an error thrown by the send reaches the other process with its facts', async () => {
    const { calls, sendOf } = manualSends();
    const a = processChannels('a')('k3', { maxBatch: 100, send: sendOf('a') });
    const b = processChannels('b')('k3', { maxBatch: 100, send: sendOf('b') });
    const first = a.submit('a1');
    await eventually(() => calls.length === 1, 'the first batch');
    const limited = b.submit('b1');
    await eventually(async () => (await waiting('k3')) === 1, 'b1 waiting');
    calls[0]?.release();
    await first;
    await eventually(() => calls.length === 2, 'the second batch');
    calls[1]?.release(new CrmRateLimitError('HubSpot said 429', 1_234, 'TEN_SECONDLY', { requestId: 'r-1' }));
    const err = await limited.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isIntegrationError(err)).toBe(true);
    expect(err).toMatchObject({
      message: 'HubSpot said 429',
      permanent: false,
      retryAfterMs: 1_234,
      limit: 'tenant',
      requestId: 'r-1',
    });
    expect(classifyFailure(err)).toMatchObject({ action: 'defer', delayMs: 1_234 });

    // A permanent one, the other way round.
    const second = b.submit('b2');
    await eventually(() => calls.length === 3, 'the third batch');
    const gone = a.submit('a4');
    await eventually(async () => (await waiting('k3')) === 1, 'a4 waiting');
    calls[2]?.release();
    await second;
    await eventually(() => calls.length === 4, 'the fourth batch');
    calls[3]?.release(new AccountNotFoundError('a4'));
    await expect(gone).rejects.toMatchObject({ permanent: true, status: 404 });
    expect(classifyFailure(await gone.catch((e: unknown) => e))).toMatchObject({ action: 'fail' });
  });

  it('a sender that dies mid-batch loses nothing: its items reject as transient, the others are re-sent', async () => {
    const timing = { slotTtlMs: 300, deadlineMs: 2_000, retakeMs: 50 };
    const { calls, sendOf } = manualSends();
    // Process a "dies" in its second send: the call never ends and its connection to Redis is gone, so
    // its slot is no longer renewed and expires.
    const aRedis = connect();
    const aSend = sendOf('a');
    const a = processChannels('a', { ...timing, redis: aRedis })('k4', {
      maxBatch: 100,
      send: (items: string[]) => {
        if (!calls.length) return aSend(items);
        aRedis.disconnect();
        return new Promise<string[]>(() => {});
      },
    });
    const b = processChannels('b', timing)('k4', { maxBatch: 100, send: sendOf('b') });
    const first = a.submit('a1');
    await eventually(() => calls.length === 1, 'the first batch');
    const popped = b.submit('b1');
    await eventually(async () => (await waiting('k4')) === 1, 'b1 waiting');
    calls[0]?.release();
    await first;
    // a took b1 into a send that never ends; b2 arrives after.
    await eventually(async () => (await waiting('k4')) === 0, 'b1 taken by a');
    const stranded = b.submit('b2');
    const lost = await popped.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(lost).toMatchObject({ permanent: false });
    expect(classifyFailure(lost)).toMatchObject({ action: 'retry' });
    // b2 waited behind a dead sender; b took the key once a's slot expired and sent it itself.
    await eventually(() => calls.length === 2, 'b sends b2');
    expect(calls[1]).toMatchObject({ by: 'b', items: ['b2'] });
    calls[1]?.release();
    expect(await stranded).toBe('sent b2 by b');
  });

  it('a sender whose call outlasts its slot time keeps the key (heartbeat): nothing is sent twice', async () => {
    // A slot of 600 ms, renewed every 200: at 150 ms, a stall of the test's loop as long as a slot (the
    // whole suite on two cores) let b take the key once in a full run.
    const timing = { slotTtlMs: 600, deadlineMs: 10_000, retakeMs: 30 };
    const { calls, sendOf } = manualSends();
    const a = processChannels('a', timing)('k6', { maxBatch: 100, send: sendOf('a') });
    const b = processChannels('b', timing)('k6', { maxBatch: 100, send: sendOf('b') });
    const first = a.submit('a1');
    await eventually(() => calls.length === 1, 'the first batch');
    // What each process asks Redis about this key, seen with MONITOR: a's heartbeats renewing its slot
    // (its slot id, "a:<n>") and b's attempts to take the key ("b:<n>").
    const asked = { a: 0, b: 0 };
    const monitor = await monitorRedis(await nodeUrlOf(prefix), ({ source, args }) => {
      if (source === 'lua' || !args.some((x) => x.includes(`${prefix}:batch:k6`))) return;
      if (args.some((x) => /^a:\d+$/.test(x))) asked.a++;
      if (args.some((x) => /^b:\d+$/.test(x))) asked.b++;
    });
    const second = b.submit('b1');
    // Several slot times pass while a's call runs (a renews its slot every third of one) and b keeps
    // trying to take the key: only once both have happened is "b never sent" worth asserting.
    const before = { ...asked };
    await eventually(
      () => asked.a - before.a >= 12 && asked.b - before.b >= 10,
      'four slot times of heartbeats and ten attempts by b',
    );
    monitor.close();
    expect(calls).toHaveLength(1);
    calls[0]?.release();
    await first;
    await eventually(() => calls.length === 2, 'the second batch');
    expect(calls[1]).toMatchObject({ by: 'a', items: ['b1'] });
    calls[1]?.release();
    expect(await second).toBe('sent b1 by a');
  });

  it('an item Redis lost (a flush) fails at once as transient; one in a sender’s hands is still answered', async () => {
    const timing = { deadlineMs: 60_000, retakeMs: 50 };
    const { calls, sendOf } = manualSends();
    const a = processChannels('a', timing)('k7', { maxBatch: 100, send: sendOf('a') });
    const b = processChannels('b', timing)('k7', { maxBatch: 100, send: sendOf('b') });
    const first = a.submit('a1');
    await eventually(() => calls.length === 1, 'the first batch');
    const second = b.submit('b1');
    await eventually(async () => (await waiting('k7')) === 1, 'b1 queued behind a1');
    // What a FLUSHALL does to this key (the shared Redis of the test run cannot be flushed).
    await probe.del(`${prefix}:batch:k7:q`, `${prefix}:batch:k7:q:held`);
    const started = Date.now();
    const err = await second.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isIntegrationError(err) && !err.permanent, String(err)).toBe(true);
    expect(String(err)).toMatch(/Redis lost the queued item/);
    expect(Date.now() - started).toBeLessThan(10_000);
    // a1 was in a's own batch: its answer still comes, through the call.
    calls[0]?.release();
    expect(await first).toBe('sent a1 by a');
    expect(calls).toHaveLength(1);
  });

  it('drain sends what waits', async () => {
    const a = processChannels('a', { maxWaitMs: 60_000 });
    const sent: string[][] = [];
    const channel = a('k5', {
      maxBatch: 10,
      send: async (items: string[]) => {
        sent.push(items);
        return items;
      },
    });
    const p = channel.submit('x');
    await a.drainAll();
    expect(await p).toBe('x');
    expect(sent).toEqual([['x']]);
  });

  it('under load, costs at most 2 Redis commands per item (counted with MONITOR)', async () => {
    let commands = 0;
    let marked = false;
    const monitor = await monitorRedis(await nodeUrlOf(prefix), ({ source, args }) => {
      // Commands a script runs show as source "lua"; the script call itself is counted once.
      if (source !== 'lua' && args.some((a) => a.includes(prefix))) commands++;
      if (args[1] === `${prefix}:end`) marked = true;
    });
    const batches: number[] = [];
    const send = async (items: string[]) => {
      batches.push(items.length);
      await new Promise((r) => setTimeout(r, 3));
      return items;
    };
    const a = processChannels('load-a')('load', { maxBatch: 100, send });
    const b = processChannels('load-b')('load', { maxBatch: 100, send });
    // 2 processes × 20 concurrent jobs × 15 writes each, every job waiting for its write.
    const job = async (channel: typeof a, n: number) => {
      for (let i = 0; i < 15; i++) {
        // Some work of its own between writes (jobs drift apart, as real ones do).
        await new Promise((r) => setTimeout(r, Math.random() * 4));
        expect(await channel.submit(`${n}:${i}`)).toBe(`${n}:${i}`);
      }
    };
    await Promise.all(Array.from({ length: 40 }, (_, n) => job(n % 2 ? a : b, n)));
    const items = 40 * 15;
    // MONITOR's lines arrive after the commands: wait for a marker sent last.
    await probe.exists(`${prefix}:end`); // a key: on a cluster it goes to the monitored node
    await eventually(() => marked, 'monitor output');
    commands--;
    monitor.close();
    const perItem = commands / items;
    console.log(
      `shared channel: ${commands} Redis commands for ${items} items (${perItem.toFixed(2)} per item), ${batches.length} batches (mean ${(items / batches.length).toFixed(1)} items)`,
    );
    expect(batches.reduce((x, y) => x + y, 0)).toBe(items);
    expect(perItem).toBeLessThanOrEqual(2);
  });
});
