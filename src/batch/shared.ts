// Batch channels shared by every worker process through Redis: items submitted under one key by any
// process leave together, so two workers fill one batch instead of two half-empty ones.
//
// Per key, a Redis list holds the waiting items (JSON, tagged with process and item id). Whoever finds
// the key free takes a slot, pops up to maxBatch and sends them with its own `send` (every process
// opens a key with the same send); it keeps sending while items wait, then frees the key (scripts.ts).
// The window is the adaptive one of the in-process Batcher: a lone item leaves at once; items that
// arrive while a batch is in flight leave together as the next one. Answers go back as one RPUSH per
// submitting process per batch to that process's reply list, which one dedicated blocking connection
// per process reads; the sender's own items resolve in place.
//
// Nothing is lost silently: a process that pushed while the key was busy retries taking it while its
// items wait (a dead sender's slot expires), the items a dead sender had popped are answered as lost
// once it has been silent for 3 slot TTLs (scripts.ts), an item Redis lost (a flush, a failover that
// dropped writes) rejects once two looks a retake apart find it nowhere, and an item nobody answers by
// its deadline rejects: all with a transient error, so their jobs retry. A sender skips items already
// past their deadline.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { DEFAULT_MAX_IN_FLIGHT } from './batcher.ts';
import type { BatchChannel, ChannelSpec, OpenChannels } from './channel.ts';
import { replyReader } from './replies.ts';
import { batchScripts } from './scripts.ts';
import { sendBatch } from './send-batch.ts';
import { decodeItem, encodeItem, SharedBatchTimeout, SharedBatchUnavailable } from './wire.ts';

export interface SharedChannelOptions {
  /** Commands (scripts); any connection of the process. */
  redis: Redis;
  /** Opens the process's blocking connection for its reply list (on first use; closed by `close`). */
  connectReplies: () => Redis;
  /** The service's key prefix; keys live under `${prefix}:batch:`. */
  prefix: string;
  /** This process's id in items and reply lists. Default: a random one. */
  processId?: string;
  /** Batches of one key in flight at once, across every process. Default 2. */
  maxInFlight?: number;
  /** Optional linger: a sender that takes a free key waits this long before popping. Default 0. */
  maxWaitMs?: number;
  /** A sender's slot expires this long after its last heartbeat (every third of it). Default 10 s. */
  slotTtlMs?: number;
  /**
   * An item nobody answered by then rejects (transient); longer than a call can take (its budget
   * wait, the request's timeout, its record). Default 120 s.
   */
  deadlineMs?: number;
  /** How often a process whose items wait tries to take the key (a sender died or left). Default 2 s. */
  retakeMs?: number;
  /** Redis failed under a channel (its items time out and their jobs retry). */
  onError?: (err: unknown, what: string) => void;
}

/** Most items one push script takes (Lua's unpack limit is far above). */
const MAX_PUSH = 1_000;

export function sharedChannels(options: SharedChannelOptions): OpenChannels {
  const pid = options.processId ?? randomUUID();
  const base = `${options.prefix}:batch`;
  const replyList = (p: string) => `${base}:reply:${p}`;
  const slotTtlMs = options.slotTtlMs ?? 10_000;
  const deadlineMs = options.deadlineMs ?? 120_000;
  const retakeMs = options.retakeMs ?? Math.max(50, Math.min(2_000, Math.floor(slotTtlMs / 4)));
  const maxInFlight = Math.max(1, options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
  const lingerMs = options.maxWaitMs ?? 0;
  const onError = options.onError ?? (() => {});
  const scripts = batchScripts(options.redis);
  const reader = replyReader({ connect: options.connectReplies, list: replyList(pid), onError });
  const { waiters } = reader;
  const open = new Map<string, BatchChannel<never, unknown>>();
  let seq = 0;
  let closed = false;

  function openChannel<I, O>(key: string, spec: ChannelSpec<I, O>): BatchChannel<I, O> {
    const queue = `${base}:${key}:q`;
    const slots = `${base}:${key}:slots`;
    const mine = new Set<Promise<unknown>>();
    const senders = new Set<Promise<void>>();
    const lingering = new Set<() => void>();
    let buffer: string[] = [];
    let flushing = false;
    let retake: NodeJS.Timeout | undefined;
    let draining = false;
    /** This process's items of the key not yet answered, with when each was submitted. */
    const waiting = new Map<string, number>();
    /** Items the last look found nowhere in Redis. */
    const suspect = new Set<string>();
    /** This process's items in a batch it is sending itself. */
    const inHand = new Set<string>();
    const slotArgs = () => ({ ttlMs: slotTtlMs, maxBatch: spec.maxBatch, slotId: `${pid}:${++seq}` });

    async function push(items: string[], linger: boolean): Promise<void> {
      const slot = slotArgs();
      let first: string[] | null;
      try {
        first = await scripts.push(
          queue,
          slots,
          {
            ...slot,
            maxInFlight,
            queueTtlMs: deadlineMs * 2,
            callId: `${pid}:${++seq}`,
            replyPrefix: replyList(''),
          },
          linger,
          items,
        );
      } catch (err) {
        onError(err, `queueing ${key}`);
        // Never reached Redis: nobody will send these, so their jobs retry now rather than at the
        // deadline (a Redis restart would otherwise hold them for minutes).
        const reason = err instanceof Error ? err.message : String(err);
        for (const raw of items) {
          const item = decodeItem(raw);
          if (item?.p === pid) waiters.get(item.i)?.reject(new SharedBatchUnavailable(key, reason));
        }
        return;
      }
      if (first) startSending(slot.slotId, first, linger);
    }

    function flush(linger = lingerMs > 0): void {
      flushing = false;
      const items = buffer;
      buffer = [];
      for (let i = 0; i < items.length; i += MAX_PUSH) void push(items.slice(i, i + MAX_PUSH), linger);
    }

    function startSending(slotId: string, first: string[], linger: boolean): void {
      const run = sendLoop(slotId, first, linger).catch((err: unknown) => onError(err, `sending ${key}`));
      senders.add(run);
      void run.finally(() => senders.delete(run));
    }

    async function sendLoop(slotId: string, first: string[], linger: boolean): Promise<void> {
      const heartbeat = setInterval(() => {
        scripts
          .renew(queue, slots, slotId, slotTtlMs)
          .catch((err: unknown) => onError(err, `renewing ${key}`));
      }, slotTtlMs / 3);
      heartbeat.unref();
      try {
        await sendBatches(slotId, first, linger);
      } finally {
        clearInterval(heartbeat);
      }
    }

    async function sendBatches(slotId: string, first: string[], linger: boolean): Promise<void> {
      let batch: string[] | null = first;
      if (linger) {
        await new Promise<void>((wake) => {
          const timer = setTimeout(wake, lingerMs);
          lingering.add(() => {
            clearTimeout(timer);
            wake();
          });
        });
        batch = [];
      }
      while (batch) {
        // This process's own items of the batch are answered here, whatever Redis still holds.
        const own = batch.map(decodeItem).flatMap((item) => (item?.p === pid ? [item.i] : []));
        for (const id of own) inHand.add(id);
        const answers = await sendBatch(batch, spec.send, pid, waiters, replyList).finally(() => {
          for (const id of own) inHand.delete(id);
        });
        batch = await scripts.next(
          queue,
          slots,
          // A draining process sends for others only while its own items wait, so shutdown ends.
          {
            ttlMs: slotTtlMs,
            maxBatch: spec.maxBatch,
            slotId,
            replyTtlMs: deadlineMs,
            stop: draining && !mine.size,
            callId: `${pid}:${++seq}`,
            replyPrefix: replyList(''),
          },
          answers,
        );
      }
    }

    /**
     * While this process has items waiting, it retries taking the key (a dead sender's slot expires)
     * and asks which of them Redis no longer holds: an item seen missing twice, a tick apart (an answer
     * read meanwhile settles it), was lost with Redis's data and fails now, transient, instead of
     * holding its job — and a worker's shutdown — until the item's deadline.
     */
    function watch(): void {
      retake ??= setInterval(() => {
        if (!mine.size) {
          clearInterval(retake);
          retake = undefined;
          return;
        }
        if (!senders.size) void push([], false);
        void lookForLost();
      }, retakeMs);
      retake.unref();
    }

    let looking = false;
    async function lookForLost(): Promise<void> {
      const ids = [...waiting]
        .filter(([id, at]) => Date.now() - at >= retakeMs && !inHand.has(id))
        .map(([id]) => id);
      if (looking || !ids.length) return;
      looking = true;
      try {
        const gone = new Set(await scripts.missing(queue, replyList(pid), pid, ids));
        for (const id of ids) {
          if (!gone.has(id)) suspect.delete(id);
          else if (suspect.has(id))
            waiters.get(id)?.reject(new SharedBatchUnavailable(key, 'Redis lost the queued item'));
          else suspect.add(id);
        }
      } catch (err) {
        onError(err, `looking for lost items of ${key}`);
      } finally {
        looking = false;
      }
    }

    function submit(item: I): Promise<O> {
      if (closed) return Promise.reject(new SharedBatchTimeout(key, 0));
      reader.listen();
      const id = (++seq).toString(36);
      const promise = new Promise<O>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(id);
          reject(new SharedBatchTimeout(key, deadlineMs));
        }, deadlineMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(id);
        };
        waiters.set(id, {
          resolve: (v) => {
            done();
            resolve(v as O);
          },
          reject: (e) => {
            done();
            reject(e);
          },
        });
      });
      const tracked = promise.then(
        () => undefined,
        () => undefined,
      );
      mine.add(tracked);
      waiting.set(id, Date.now());
      void tracked.finally(() => {
        mine.delete(tracked);
        waiting.delete(id);
        suspect.delete(id);
      });
      buffer.push(encodeItem({ p: pid, i: id, d: Date.now() + deadlineMs, v: item }));
      // One push per tick: the items of jobs resumed by one answer travel in one command.
      if (!flushing) {
        flushing = true;
        queueMicrotask(() => flush());
      }
      watch();
      return promise;
    }

    async function drain(): Promise<void> {
      draining = true;
      flush(false);
      for (const wake of lingering) wake();
      lingering.clear();
      // Our items may wait behind another process's sender, or behind none if it died: take the key.
      if (mine.size && !senders.size) await push([], false);
      await Promise.allSettled([...mine, ...senders]);
      await Promise.allSettled([...senders]);
    }

    return { submit, drain };
  }

  const channels = <I, O>(key: string, spec: ChannelSpec<I, O>): BatchChannel<I, O> => {
    let channel = open.get(key) as BatchChannel<I, O> | undefined;
    if (!channel) {
      channel = openChannel(key, spec);
      open.set(key, channel as unknown as BatchChannel<never, unknown>);
    }
    return channel;
  };
  return Object.assign(channels, {
    drainAll: async () => {
      await Promise.all([...open.values()].map((c) => c.drain()));
    },
    close: async () => {
      closed = true;
      await reader.close();
    },
  });
}
