// New accounts while a customer run's backfill goes on (issue 42: "new webhook accounts waited ~20 s
// behind it"): every `everyS` a company is created in the CRM emulator and its job queued as the webhook
// receiver queues one (enrichJob, trigger `webhook`, so its priority and its urgency at the provider's
// pace are a webhook's); its wait is from queueing to the job's finishedOn. The receiver's own HTTP
// hop is left out: latency.ts measures it (milliseconds), this measures waiting behind the backfill.
import type { Queue } from 'bullmq';
import { type EnrichQueueData, enrichJob } from '../queues/enrich-queue.ts';

export interface WebhookAccountsOptions {
  queue: Queue<EnrichQueueData>;
  crm: 'hubspot' | 'salesforce';
  tenant: string;
  attempts: number;
  /** Creates the account in the CRM emulator; answers its record (an id). */
  seed: (a: { name: string; state: string; domain?: string }) => { id: string } | { Id: string };
  names: { name: string; state: string; domain?: string }[];
}

export function webhookAccounts(
  when: { fromS: number; everyS: number; count: number },
  o: WebhookAccountsOptions,
) {
  const queued: { jobId: string; at: number }[] = [];
  let next = 0;
  return {
    /** Called about once a second with the seconds since the run's start. */
    async tick(s: number): Promise<void> {
      while (next < when.count && s >= when.fromS + next * when.everyS) {
        const a = o.names[next % o.names.length];
        next++;
        if (!a) continue;
        const record = o.seed(a);
        const accountId = 'id' in record ? record.id : record.Id;
        const job = enrichJob({ crm: o.crm, tenant: o.tenant, accountId }, 'webhook', {
          key: `bench-${accountId}`,
          attempts: o.attempts,
        });
        const at = Date.now();
        await o.queue.add(job.name, job.data, job.opts);
        queued.push({ jobId: job.opts.jobId ?? '', at });
      }
    },
    /** Each queued account's wait (ms), once its job finished; one that never did is left out. */
    async finish(): Promise<number[]> {
      const ms: number[] = [];
      for (const q of queued) {
        const job = await o.queue.getJob(q.jobId);
        if (job?.finishedOn) ms.push(job.finishedOn - q.at);
      }
      return ms.sort((a, b) => a - b);
    },
  };
}
