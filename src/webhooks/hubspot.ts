// POST /webhooks/hubspot: HubSpot's batched events → one enrich job per company. The signature is
// checked over the raw bytes and the full URL HubSpot called; the batch is validated; the jobs are in
// Redis before we answer 200 (so an answered webhook is never lost), and a Redis outage answers 503 so
// that HubSpot retries. Job ids make HubSpot's re-deliveries and duplicate events no-ops.
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { type EnrichJobData, enrichJobOptions, jobIdOf } from '../../queues/enrich-queue.ts';
import { formatPath } from '../shared/format-path.ts';
import { verifyHubSpotSignatureV3 } from './hubspot-signature.ts';

export const HUBSPOT_MAX_EVENTS = 100;

const eventSchema = z.looseObject({
  eventId: z.union([z.number(), z.string()]),
  subscriptionType: z.string(),
  portalId: z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String),
  objectId: z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String),
  occurredAt: z.number(),
  attemptNumber: z.number().int().optional(),
  changeSource: z.string().optional(),
  sourceId: z.string().optional(),
  propertyName: z.string().optional(),
});
const batchSchema = z
  .array(eventSchema)
  .min(1, 'empty batch')
  .max(HUBSPOT_MAX_EVENTS, `more than ${HUBSPOT_MAX_EVENTS} events`);

export interface QueuedJob {
  name: string;
  data: EnrichJobData;
  opts: ReturnType<typeof enrichJobOptions>;
}

export interface HubSpotWebhookOptions {
  clientSecret: string;
  /** The public URL prefix HubSpot calls (scheme and host, e.g. `https://sync.example.com`), when behind a proxy. */
  publicBaseUrl?: string | undefined;
  /** Portals we hold credentials for; events of other portals are acknowledged and ignored. */
  isKnownPortal: (portalId: string) => boolean;
  /** Our app id: property changes our own writes cause must not trigger another enrichment. */
  appId?: string | undefined;
  /** Adds the jobs to the queue (queue.addBulk); must resolve only once they are in Redis. */
  enqueue: (jobs: QueuedJob[]) => Promise<unknown>;
  attempts: number;
  maxBodyBytes?: number;
  /** Prefix of the CRM properties we own (changes to them are ours). */
  ownPropertyPrefix?: string;
  now?: () => number;
}

function problem(res: Response, status: number, error: string, message: string): void {
  res.status(status).json({ error, message });
}

export function hubspotWebhookRouter(options: HubSpotWebhookOptions): express.Router {
  const router = express.Router();
  const ownPrefix = options.ownPropertyPrefix ?? 'buyer_intel_';

  router.post(
    '/',
    express.raw({ type: () => true, limit: options.maxBodyBytes ?? 1024 * 1024 }),
    async (req: Request, res: Response) => {
      const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      const base = options.publicBaseUrl?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host')}`;
      const check = verifyHubSpotSignatureV3({
        secret: options.clientSecret,
        method: req.method,
        uri: `${base}${req.originalUrl}`,
        rawBody: raw,
        signature: req.get('x-hubspot-signature-v3'),
        timestamp: req.get('x-hubspot-request-timestamp'),
        ...(options.now ? { now: options.now() } : {}),
      });
      if (!check.ok) return problem(res, 401, 'invalid_signature', check.reason);

      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        return problem(res, 400, 'malformed_json', 'the body is not valid JSON');
      }
      const parsed = batchSchema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return problem(
          res,
          400,
          'invalid_batch',
          `${formatPath(issue?.path ?? [])}: ${issue?.message ?? 'invalid'}`,
        );
      }

      const jobs: QueuedJob[] = [];
      let ignored = 0;
      const seen = new Set<string>();
      for (const event of parsed.data) {
        const job = jobFor(event, options, ownPrefix);
        if (!job || seen.has(job.opts.jobId ?? '')) {
          ignored++;
          continue;
        }
        seen.add(job.opts.jobId ?? '');
        jobs.push(job);
      }
      try {
        if (jobs.length) await options.enqueue(jobs);
      } catch {
        return problem(res, 503, 'queue_unavailable', 'could not queue the events; retry later');
      }
      res.status(200).json({ received: parsed.data.length, enqueued: jobs.length, ignored });
    },
  );

  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const e = err as { type?: string };
    if (e.type === 'entity.too.large') return problem(res, 413, 'payload_too_large', 'the body is too large');
    next(err);
  });
  return router;
}

function jobFor(
  event: z.output<typeof eventSchema>,
  options: HubSpotWebhookOptions,
  ownPrefix: string,
): QueuedJob | null {
  if (!options.isKnownPortal(event.portalId)) return null;
  const data = (cause: string): EnrichJobData => ({
    crm: 'hubspot',
    tenant: event.portalId,
    accountId: event.objectId,
    trigger: 'webhook',
    cause,
  });
  if (event.subscriptionType === 'company.creation') {
    const jobId = jobIdOf('hubspot', event.portalId, event.objectId, 'created');
    return {
      name: 'enrich',
      data: data(`company.creation event ${event.eventId}`),
      opts: enrichJobOptions('webhook', options.attempts, jobId),
    };
  }
  if (event.subscriptionType === 'company.propertyChange') {
    const ours =
      (event.propertyName?.startsWith(ownPrefix) ?? false) ||
      (options.appId !== undefined && event.sourceId === options.appId);
    if (ours) return null;
    // A change re-enriches; several changes of one company moments apart are one job.
    const jobId = jobIdOf(
      'hubspot',
      event.portalId,
      event.objectId,
      'changed',
      Math.floor(event.occurredAt / 60_000),
    );
    return {
      name: 'enrich',
      data: data(`company.propertyChange ${event.propertyName ?? ''} event ${event.eventId}`),
      opts: enrichJobOptions('webhook', options.attempts, jobId),
    };
  }
  return null;
}
