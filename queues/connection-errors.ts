// What a BullMQ worker reports as 'error' events: mostly its Redis connections failing while Redis
// (or a cluster node) is away. A worker with no 'error' listener has them printed by BullMQ
// (QueueBase.emit falls back to console.error) as raw multi-line stacks, one per attempt: issue 44
// saw ~6,400 of them (10.9 MB of non-JSON log) in 10 minutes from one worker. Here each distinct
// message is one JSON log line per interval, with how many times it recurred since the last line.
import type { LogPort } from '../src/shared/log.ts';

export const CONNECTION_ERROR_INTERVAL_MS = 10_000;

interface ErrorSource {
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/**
 * Listens to `source`'s 'error' events and logs them through `log`, throttled per message. Without a
 * log (some tests) the line goes to stderr, still one JSON line: never swallowed.
 */
export function logConnectionErrors(
  source: ErrorSource,
  what: string,
  log: Pick<LogPort, 'warn'> | undefined,
  intervalMs = CONNECTION_ERROR_INTERVAL_MS,
): void {
  const seen = new Map<string, { at: number; repeated: number }>();
  source.on('error', (err: Error) => {
    const reason = err?.message ?? String(err);
    const now = Date.now();
    const last = seen.get(reason);
    if (last && now - last.at < intervalMs) {
      last.repeated++;
      return;
    }
    seen.set(reason, { at: now, repeated: 0 });
    // A message seen once and never again must not stay in the map for the life of the process.
    for (const [key, entry] of seen) if (now - entry.at > 6 * intervalMs) seen.delete(key);
    const fields = { worker: what, reason, ...(last?.repeated ? { repeated: last.repeated } : {}) };
    const msg = `${what} worker connection error; retrying`;
    if (log) log.warn(msg, fields);
    else process.stderr.write(`${JSON.stringify({ level: 'warn', msg, ...fields })}\n`);
  });
}
