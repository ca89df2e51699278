// What the end-to-end tests share about a running service: creating it on a database of its own,
// waiting for an account's job, and removing everything the service put in Redis.
import { redisClient } from '../../queues/redis-url.ts';
import type { EnrichResult } from '../../src/enrich/types.ts';
import { createService, type Service, type ServiceSettings } from '../../src/service/runtime.ts';
import { eventually } from './poll.ts';
import { deleteKeysOf } from './redis.ts';
import { serviceDatabase } from './test-database.ts';

/**
 * The service under test, on the database its settings name or else a fresh one of its own
 * (test-database.ts: TEST_DATABASE_URL's server where there is one, the embedded one otherwise).
 */
export async function createTestService(settings: ServiceSettings): Promise<Service> {
  return createService({ ...settings, database: settings.database ?? (await serviceDatabase()) });
}

/** Bounded poll for the account's finished job (no fixed sleeps); throws with the job's failure. */
export async function finishedJob(
  service: Service,
  accountId: string,
  timeoutMs = 20_000,
): Promise<EnrichResult> {
  const job = await eventually(
    async () => {
      const jobs = await service.queue.getJobs(['completed', 'failed']);
      const job = jobs.find((j) => j.data.accountId === accountId);
      const failed = job?.failedReason && job.attemptsMade >= (job.opts.attempts ?? 1);
      return job?.returnvalue || failed ? job : undefined;
    },
    `account ${accountId} enriched`,
    { timeoutMs, intervalMs: 50 },
  );
  if (!job.returnvalue) throw new Error(`job failed: ${job.failedReason}`);
  return job.returnvalue as EnrichResult;
}

/** Closes the service and deletes its queue and every key under its prefix. */
export async function closeService(
  service: Service | undefined,
  redisUrl: string,
  prefix: string,
): Promise<void> {
  await service?.close();
  await service?.queue.obliterate({ force: true }).catch(() => undefined);
  const redis = redisClient(redisUrl);
  await deleteKeysOf(redis, prefix);
  redis.disconnect();
}

/** Bounded poll until the job has completed (a failed job throws with its reason). */
export async function completedJob(service: Service, jobId: string, timeoutMs = 20_000): Promise<void> {
  const state = await eventually(
    async () => {
      const state = await service.queue.getJobState(jobId);
      return state === 'completed' || state === 'failed' ? state : undefined;
    },
    `job ${jobId} completing`,
    { timeoutMs },
  );
  if (state === 'failed')
    throw new Error(`job ${jobId} failed: ${(await service.queue.getJob(jobId))?.failedReason}`);
}

/** POST /api/refresh for a HubSpot company with an API key, then waits for the job. */
export async function refreshAndWait(
  service: Service,
  base: string,
  apiKey: string,
  accountId: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await fetch(`${base}/api/refresh`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ crm: 'hubspot', accountId }),
  });
  const { jobId } = (await res.json()) as { jobId: string };
  await completedJob(service, jobId);
  return jobId;
}
