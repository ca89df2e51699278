// The answers a shared batch channel's senders push back to this process: one reply list per process,
// read by one dedicated blocking connection (opened on first use), each answer settling the waiter of
// its item. Waiters are kept here so the senders can settle this process's own items in place.
import type { Redis } from 'ioredis';
import type { Waiter } from './send-batch.ts';
import { decodeReplies, RemoteBatchError, SharedBatchTimeout, type WireReply } from './wire.ts';

export interface ReplyReader {
  /** This process's items waiting for an answer, by item id. */
  readonly waiters: Map<string, Waiter>;
  /** Starts reading the reply list (once; nothing after `close`). */
  listen(): void;
  /** Stops reading and rejects every item still waiting (transient: its job retries). */
  close(): Promise<void>;
}

export function replyReader(options: {
  connect: () => Redis;
  list: string;
  onError: (err: unknown, what: string) => void;
}): ReplyReader {
  const waiters = new Map<string, Waiter>();
  let closed = false;
  let conn: Redis | undefined;
  let loop: Promise<void> | undefined;

  function settle(reply: WireReply): void {
    const waiter = waiters.get(reply[0]);
    if (!waiter) return;
    if (reply[1] === 1) waiter.resolve(reply[2]);
    else waiter.reject(new RemoteBatchError(reply[2]));
  }

  return {
    waiters,
    listen() {
      if (loop || closed) return;
      const blocking = options.connect();
      conn = blocking;
      loop = (async () => {
        while (!closed) {
          try {
            const got = await blocking.blpop(options.list, 5);
            if (got) for (const reply of decodeReplies(got[1])) settle(reply);
          } catch (err) {
            if (closed) return;
            options.onError(err, 'reading batch answers');
            await new Promise((r) => setTimeout(r, 500));
          }
        }
      })();
    },
    async close() {
      closed = true;
      conn?.disconnect();
      await loop;
      for (const [, waiter] of waiters) waiter.reject(new SharedBatchTimeout('a closed channel', 0));
    },
  };
}
