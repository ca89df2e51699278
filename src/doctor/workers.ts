// `doctor`'s check that something consumes the queues: BullMQ's own list of the workers connected to
// each enrich queue (CLIENT LIST, by the client names BullMQ gives them) and what waits there. Zero
// workers with jobs waiting: FAIL (webhooks are queued and nothing runs them); zero with nothing
// waiting: WARN (fine before the first worker starts, wrong in production).
import { BACKFILL_QUEUE, createEnrichQueue, ENRICH_QUEUE } from '../../queues/enrich-queue.ts';
import { probeClient } from '../../queues/redis.ts';
import { withTimeout } from '../shared/deadline.ts';
import type { CheckResult } from './result.ts';

const NAME = 'workers';

export async function checkWorkers(url: string, prefix: string, timeoutMs: number): Promise<CheckResult> {
  const redis = probeClient(url, Math.min(timeoutMs, 5_000));
  redis.on('error', () => undefined);
  let queues: ReturnType<typeof createEnrichQueue>[] = [];
  try {
    // Connected first: BullMQ would otherwise start connecting the shared client itself.
    await withTimeout(redis.connect(), timeoutMs, 'connect');
    queues = [ENRICH_QUEUE, BACKFILL_QUEUE].map((name) => createEnrichQueue(redis, { name, prefix }));
    const seen = await withTimeout(
      Promise.all(
        queues.map(async (q) => ({
          name: q.name,
          workers: await q.getWorkers(),
          waiting: await q.getWaitingCount(),
        })),
      ),
      timeoutMs,
      'list workers',
    );
    if (seen.some((q) => q.workers.some((w) => w.name === 'GCP does not support client list')))
      return { name: NAME, status: 'warn', detail: 'cannot list workers: this Redis refuses CLIENT LIST' };
    const workers = Math.max(...seen.map((q) => q.workers.length));
    const waiting = seen.reduce((n, q) => n + q.waiting, 0);
    const queued = `${waiting} job${waiting === 1 ? '' : 's'} waiting`;
    if (workers > 0)
      return {
        name: NAME,
        status: 'pass',
        detail: `${seen.map((q) => `${q.workers.length} on ${q.name}`).join(', ')}; ${queued}`,
      };
    return {
      name: NAME,
      status: waiting > 0 ? 'fail' : 'warn',
      detail: `no worker consumes the queues (${queued}): run \`buyer-intel-sync worker\` (or \`start\`) with this REDIS_URL and REDIS_PREFIX`,
    };
  } catch (err) {
    return {
      name: NAME,
      status: 'warn',
      detail: `cannot list workers: ${err instanceof Error ? err.message : String(err)}`,
    };
  } finally {
    await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
    redis.disconnect();
  }
}
