// POST /webhooks/buyer-intel: the provider's Standard Webhooks deliveries of bridge row events. Verify
// the signature over the raw bytes, drop re-deliveries by `webhook-id`, parse, queue one job per row
// event, and answer 2xx only once the job is in Redis: an acknowledged delivery is never lost, and a
// failure to queue answers 503 so the provider retries.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import { type SignalJob, signalJobFor } from '../../queues/signal-queue.ts';
import { RETRY_AFTER_SECONDS } from '../api/unavailable.ts';
import { contentTypeProblem } from '../shared/content-type.ts';
import type { LogPort } from '../shared/log.ts';
import { jsonShapeProblem } from '../shared/text.ts';
import {
  ROW_EVENT_TYPES,
  type RowEventType,
  rowEventDataSchema,
  WEBHOOK_DEDUPE_TTL_SECONDS,
  webhookEnvelopeSchema,
} from '../signals/events.ts';
import {
  createStandardWebhookVerifier,
  type StandardWebhookVerifier,
  type VerifierOptions,
} from '../signals/standard-webhooks.ts';

export interface BuyerIntelWebhookOptions {
  /** Keys (`whsec_` secrets and/or `whpk_` public keys), or a ready verifier. */
  verify: VerifierOptions | StandardWebhookVerifier;
  /** A producer connection (fails fast while Redis is down). */
  redis: Redis;
  /** Key prefix of the service; dedupe keys are `${prefix}:bi-webhook:${webhook-id}`. */
  prefix: string;
  /** Adds the job (queue.add(job.name, job.data, job.opts)); must resolve only once it is in Redis. */
  enqueue: (job: SignalJob) => Promise<unknown>;
  /** Attempts of each job. Default 5. */
  attempts?: number;
  dedupeTtlSeconds?: number;
  /** Default 256 KiB: a row event is a few hundred bytes. */
  maxBodyBytes?: number;
  log?: LogPort;
}

function reply(res: Response, status: number, body: Record<string, unknown>): void {
  res.status(status).json(body);
}

const isRowEvent = (type: string): type is RowEventType =>
  (ROW_EVENT_TYPES as readonly string[]).includes(type);

export function buyerIntelWebhookRouter(options: BuyerIntelWebhookOptions): express.Router {
  const verify =
    typeof options.verify === 'function' ? options.verify : createStandardWebhookVerifier(options.verify);
  const ttl = options.dedupeTtlSeconds ?? WEBHOOK_DEDUPE_TTL_SECONDS;
  const attempts = options.attempts ?? 5;
  const seenKey = (id: string) => `${options.prefix}:bi-webhook:${id}`;
  const log = options.log;

  const router = express.Router();
  router.post(
    '/',
    (req: Request, res: Response, next: NextFunction) => {
      const problem = contentTypeProblem(req.get('content-type'), ['application/json']);
      if (problem) return reply(res, 415, { error: 'unsupported_media_type', message: problem });
      next();
    },
    express.raw({ type: () => true, limit: options.maxBodyBytes ?? 256 * 1024 }),
    async (req: Request, res: Response) => {
      const body: Buffer = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const header = (name: string) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v.join(' ') : v;
      };
      const verified = verify(
        {
          id: header('webhook-id'),
          timestamp: header('webhook-timestamp'),
          signature: header('webhook-signature'),
        },
        body,
      );
      if (!verified.ok) {
        log?.warn('buyer-intel webhook rejected', { reason: verified.reason });
        return reply(res, 401, { error: verified.reason, message: verified.message });
      }
      const id = verified.id;

      let envelope: ReturnType<typeof webhookEnvelopeSchema.parse>;
      // Bounded before JSON.parse builds it: a row event is a flat object of a few fields.
      const text = body.toString('utf8');
      const shape = jsonShapeProblem(text, { maxDepth: 16, maxValues: 5_000 });
      if (shape) return reply(res, 400, { error: 'invalid_payload', message: shape });
      try {
        const parsed = webhookEnvelopeSchema.safeParse(JSON.parse(text));
        if (!parsed.success)
          return reply(res, 400, {
            error: 'invalid_payload',
            message: 'the body must be an event with a type',
          });
        envelope = parsed.data;
      } catch {
        return reply(res, 400, { error: 'invalid_json', message: 'the body is not JSON' });
      }

      let job: SignalJob | null = null;
      if (isRowEvent(envelope.type)) {
        const data = rowEventDataSchema.safeParse(envelope.data);
        if (!data.success) {
          const where = data.error.issues[0]?.path.join('.') ?? 'data';
          return reply(res, 400, {
            error: 'invalid_payload',
            message: `${envelope.type}: data.${where} is missing or invalid`,
          });
        }
        const row = data.data;
        job = signalJobFor(
          {
            webhookId: id,
            type: envelope.type,
            rowId: row.rowId,
            bridgeId: row.bridgeId,
            updatedAt: row.updatedAt ?? null,
            name: row.name ?? null,
          },
          attempts,
          WEBHOOK_DEDUPE_TTL_SECONDS,
        );
      }

      try {
        // Fast path for re-deliveries; the job id below makes a racing duplicate harmless too.
        if (await options.redis.exists(seenKey(id))) return reply(res, 200, { status: 'duplicate', id });
        if (job) await options.enqueue(job);
      } catch {
        log?.warn('buyer-intel webhook could not be queued; the provider will retry', { webhookId: id });
        res.set('Retry-After', String(RETRY_AFTER_SECONDS));
        return reply(res, 503, { error: 'unavailable', message: 'could not queue the event; retry later' });
      }
      // Set only after the job is durable: a crash before this line makes the re-delivery enqueue the
      // same job id again (a no-op), never lose the event.
      await options.redis.set(seenKey(id), '1', 'EX', ttl, 'NX').catch(() => undefined);
      if (!job) {
        log?.info('buyer-intel webhook ignored', { webhookId: id, type: envelope.type });
        return reply(res, 200, { status: 'ignored', id, type: envelope.type });
      }
      reply(res, 200, { status: 'accepted', id, jobId: job.opts.jobId });
    },
  );
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if ((err as { type?: string }).type === 'entity.too.large')
      return reply(res, 413, { error: 'payload_too_large', message: 'the body is too large' });
    next(err);
  });
  return router;
}
