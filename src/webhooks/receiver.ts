// The one HTTP receiver for every CRM's event deliveries: read the raw bytes, let the CRM's handler
// (connectors/<crm>/) verify and parse them, queue one enrich job per account event, and acknowledge
// only once the jobs are in Redis, so an acknowledged delivery is never lost. A Redis outage gets the
// CRM's "retry later" answer; job ids make re-deliveries and duplicates no-ops.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { InboundEventHandler, InboundReply } from '../../connectors/types.ts';
import { type EnrichJob, jobForEvent } from '../../queues/enrich-queue.ts';

export interface WebhookReceiverOptions {
  /** The public URL prefix the CRM calls (scheme and host), when we sit behind a proxy. */
  publicBaseUrl?: string | undefined;
  /** Adds the jobs to the queue (queue.addBulk); must resolve only once they are in Redis. */
  enqueue: (jobs: EnrichJob[]) => Promise<unknown>;
  attempts: number;
  maxBodyBytes?: number;
}

function send(res: Response, reply: InboundReply): void {
  res.status(reply.status).type(reply.contentType).send(reply.body);
}

export function webhookReceiver(
  handler: InboundEventHandler,
  options: WebhookReceiverOptions,
): express.Router {
  const router = express.Router();
  router.post(
    '/',
    express.raw({ type: () => true, limit: options.maxBodyBytes ?? 1024 * 1024 }),
    async (req: Request, res: Response) => {
      const base = options.publicBaseUrl?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host')}`;
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(req.headers))
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
      const parsed = handler.parse({
        method: req.method,
        url: `${base}${req.originalUrl}`,
        headers,
        body: Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '',
      });
      if (!parsed.ok) return send(res, handler.rejected(parsed));

      const jobs = new Map<string, EnrichJob>();
      for (const event of parsed.events) {
        const job = jobForEvent(event, options.attempts);
        if (!jobs.has(job.opts.jobId ?? '')) jobs.set(job.opts.jobId ?? '', job);
      }
      try {
        if (jobs.size) await options.enqueue([...jobs.values()]);
      } catch {
        return send(res, handler.unavailable());
      }
      send(
        res,
        handler.accepted({
          received: parsed.received,
          enqueued: jobs.size,
          ignored: parsed.received - jobs.size,
        }),
      );
    },
  );
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if ((err as { type?: string }).type === 'entity.too.large')
      return send(
        res,
        handler.rejected({ status: 413, error: 'payload_too_large', message: 'the body is too large' }),
      );
    next(err);
  });
  return router;
}
