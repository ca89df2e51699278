// What a backfill chunk's job returns (enrich-chunk.ts): one entry per account, and how readers — the
// worker's log, the backfill's outcome count, the jobs API, the bench — tell it from one account's result.

export type ChunkAccount<R> =
  | { accountId: string; result: R }
  /** The status an earlier run of this chunk recorded (a re-run after a stall skips the account). */
  | { accountId: string; recorded: string }
  /** Its own job now (`handedOff`, its id), for this reason. */
  | { accountId: string; handedOff: string; reason: string };

/** A chunk's return value: one entry per account, in the chunk's order. */
export interface ChunkResult<R> {
  accounts: ChunkAccount<R>[];
}

/** A job's return value is a chunk's (one account's is the pipeline's own result). */
export function isChunkResult(value: unknown): value is ChunkResult<unknown> {
  return (
    typeof value === 'object' && value !== null && Array.isArray((value as ChunkResult<unknown>).accounts)
  );
}

/** The accounts a job's return value says it enriched now: its own, or its chunk's. */
export function enrichedBy<R>(returned: R | ChunkResult<R>): R[] {
  if (!isChunkResult(returned)) return [returned as R];
  return (returned as ChunkResult<R>).accounts.flatMap((a) => ('result' in a ? [a.result] : []));
}
