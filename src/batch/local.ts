// Batch channels for the jobs of one process: a channel per key, each a Batcher.
import { Batcher } from '../write/batcher.ts';
import type { BatchChannel, BatchChannels, ChannelSpec } from './channel.ts';

export function localChannels(options: { maxWaitMs: number }): BatchChannels & {
  drainAll(): Promise<void>;
} {
  const open = new Map<string, BatchChannel<never, unknown>>();
  const channels = <I, O>(key: string, spec: ChannelSpec<I, O>): BatchChannel<I, O> => {
    let channel = open.get(key) as BatchChannel<I, O> | undefined;
    if (!channel) {
      const batcher = new Batcher<I, O>({
        maxBatch: spec.maxBatch,
        maxWaitMs: options.maxWaitMs,
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
  });
}
