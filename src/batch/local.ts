// Batch channels for the jobs of one process (a CLI run, a test, anything without Redis): a channel
// per key, each an adaptive Batcher (group commit, see src/batch/batcher.ts).
import { Batcher } from './batcher.ts';
import type { BatchChannel, ChannelSpec, OpenChannels } from './channel.ts';

export interface LocalChannelOptions {
  /** Optional linger before a partial batch leaves (ms). Default 0: only the in-flight batch waits. */
  maxWaitMs?: number;
  /** Batches of one key in flight at once. Default 2. */
  maxInFlight?: number;
}

export function localChannels(options: LocalChannelOptions = {}): OpenChannels {
  const open = new Map<string, BatchChannel<never, unknown>>();
  const channels = <I, O>(key: string, spec: ChannelSpec<I, O>): BatchChannel<I, O> => {
    let channel = open.get(key) as BatchChannel<I, O> | undefined;
    if (!channel) {
      const batcher = new Batcher<I, O>({
        maxBatch: spec.maxBatch,
        ...options,
        send: (items) => spec.send(items),
      });
      channel = { submit: (item) => batcher.submit(item), drain: () => batcher.drain() };
      open.set(key, channel as unknown as BatchChannel<never, unknown>);
    }
    return channel;
  };
  return Object.assign(channels, {
    drainAll: async () => {
      await Promise.all([...open.values()].map((c) => c.drain()));
    },
    close: async () => {},
  });
}
