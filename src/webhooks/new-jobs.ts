// A delivery's acknowledgement says how many jobs it really queued: BullMQ's addBulk answers the same
// for a job id it already holds (a re-delivery) as for a new one, so the receiver would claim
// "enqueued: 1" for work it did not queue again. The ids are looked up first (a race between two copies of one delivery may count both as new).
import type { Queue } from 'bullmq';
import type { EnrichJob } from '../../queues/enrich-queue.ts';

/** Adds the jobs; resolves to how many were new (neither an existing id nor deduplicated). */
export async function addCountingNew(queue: Queue, jobs: EnrichJob[]): Promise<{ added: number }> {
  const ids = jobs.map((j) => j.opts.jobId ?? '');
  const held = await Promise.all(ids.map((id) => (id === '' ? undefined : queue.getJob(id))));
  const existing = held.filter((job) => job).length;
  const added = await queue.addBulk(jobs);
  // A deduplicated job comes back under the id of the job that holds its key.
  const deduplicated = added.filter((job, i) => ids[i] !== '' && job.id !== ids[i]).length;
  return { added: Math.max(0, jobs.length - existing - deduplicated) };
}
