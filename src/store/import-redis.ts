// Upgrading from a version that kept each account's last outcome only in Redis (keys
// `<prefix>:history:<crm>|<tenant>|<account>`, 90-day TTL): copies them into the store. Idempotent: an
// outcome the store already has at the same time or later is kept, so running it twice imports nothing.
import type { Redis } from 'ioredis';
import { nodesOf } from '../../queues/redis-url.ts';
import type { HistoryEntry } from './history.ts';
import { recordOf } from './history.ts';
import type { Outcomes } from './outcomes.ts';

export interface ImportReport {
  /** Keys found. */
  found: number;
  /** Outcomes written into the store. */
  imported: number;
  /** Already there, as recent or newer. */
  kept: number;
  /** Keys that could not be read as an outcome. */
  unreadable: number;
}

const BATCH = 200;

function parse(raw: string): HistoryEntry | undefined {
  try {
    const entry = JSON.parse(raw) as HistoryEntry;
    return typeof entry?.at === 'string' && !Number.isNaN(Date.parse(entry.at)) ? entry : undefined;
  } catch {
    return undefined;
  }
}

export async function importRedisHistory(
  redis: Redis,
  prefix: string,
  outcomes: Outcomes,
): Promise<ImportReport> {
  const report: ImportReport = { found: 0, imported: 0, kept: 0, unreadable: 0 };
  const head = `${prefix}:history:`;
  // Every master of a cluster (a client's SCAN asks one node).
  const streams = nodesOf(redis).map((node) => node.scanStream({ match: `${head}*`, count: 500 }));
  for (const stream of streams)
    for await (const batch of stream as AsyncIterable<string[]>) {
      const keys = batch.filter((k) => k !== `${head}recent`);
      for (let i = 0; i < keys.length; i += BATCH) {
        const chunk = keys.slice(i, i + BATCH);
        const raws = chunk.length ? await redis.mget(...chunk) : [];
        for (const [j, key] of chunk.entries()) {
          const raw = raws[j];
          if (!raw) continue; // expired between the scan and the read
          report.found++;
          const [crm, tenant, accountId] = key.slice(head.length).split('|');
          const entry = parse(raw);
          if (!crm || !tenant || !accountId || !entry || (!entry.result && !entry.error)) {
            report.unreadable++;
            continue;
          }
          const at = new Date(entry.at);
          const written = entry.result
            ? await outcomes.record(recordOf(entry.result, { jobId: entry.jobId }, at), { onlyIfNewer: true })
            : await outcomes.recordError({ crm, tenant, accountId }, entry.error ?? 'failed', {
                jobId: entry.jobId,
                at,
                onlyIfNewer: true,
              });
          if (written) report.imported++;
          else report.kept++;
        }
      }
    }
  return report;
}
