// What the end-to-end tests share about a running service: waiting for an account's job, and
// removing everything the service put in Redis.
import { Redis } from 'ioredis';
import type { EnrichResult } from '../../src/enrich/pipeline.ts';
import type { Service } from '../../src/service/runtime.ts';

/** Bounded poll for the account's finished job (no fixed sleeps); throws with the job's failure. */
export async function finishedJob(
  service: Service,
  accountId: string,
  timeoutMs = 20_000,
): Promise<EnrichResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const jobs = await service.queue.getJobs(['completed', 'failed']);
    const job = jobs.find((j) => j.data.accountId === accountId);
    if (job?.returnvalue) return job.returnvalue as EnrichResult;
    if (job?.failedReason && job.attemptsMade >= (job.opts.attempts ?? 1))
      throw new Error(`job failed: ${job.failedReason}`);
    if (Date.now() > deadline) throw new Error(`account ${accountId} was not enriched in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Closes the service and deletes its queue and every key under its prefix. */
export async function closeService(
  service: Service | undefined,
  redisUrl: string,
  prefix: string,
): Promise<void> {
  await service?.close();
  await service?.queue.obliterate({ force: true }).catch(() => undefined);
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
}
