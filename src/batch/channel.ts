// How concurrent jobs share one upstream call. Every batched CRM operation (reads, field writes, notes,
// "which notes are there already") goes through a channel named by what it sends and to whom
// (`fields:hubspot:123`): items submitted anywhere under one key leave together, up to the spec's
// `maxBatch`, and each submitter gets its own item's result back.
//
// Two implementations share this shape: one batches the jobs of one process (local.ts), the other the
// jobs of every worker process through Redis (shared.ts). Items and results of a shared channel travel
// as JSON, so both must be plain data; a send that throws rejects every item of its batch with the
// error's facts (src/shared/errors.ts), which is all the job's retry decision reads.

export interface ChannelSpec<I, O> {
  /** The most items one call takes (the CRM's batch limit). */
  maxBatch: number;
  /** Sends one batch; one result per item, in order. Every process opens a key with the same send. */
  send(items: I[]): Promise<O[]>;
}

export interface BatchChannel<I, O> {
  submit(item: I): Promise<O>;
  /** Sends what waits now and waits for every batch in flight (shutdown). */
  drain(): Promise<void>;
}

/** Opens the channel for `key` (the same object for the same key, once opened). */
export type BatchChannels = <I, O>(key: string, spec: ChannelSpec<I, O>) => BatchChannel<I, O>;

/** A process's channels as the service holds them: drained, then closed, on shutdown. */
export type OpenChannels = BatchChannels & {
  /** Sends what waits in every open channel and waits for their batches (shutdown). */
  drainAll(): Promise<void>;
  /** Releases what the channels hold (a shared channel's reply connection); after drainAll. */
  close(): Promise<void>;
};
