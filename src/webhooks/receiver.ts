// The one HTTP receiver for every CRM's event deliveries: read the raw bytes as they arrive
// (read-body.ts: a CRM's streamed signature check refuses a forged delivery before it is held whole or
// parsed), let the CRM's handler (connectors/<crm>/) verify and parse them, record the delivery as one
// run, queue one enrich job per account event (each naming the run), and acknowledge only once the
// jobs are in Redis, so an acknowledged delivery is never lost. A store or Redis outage gets the CRM's
// "retry later" answer (nothing queued yet, or nothing acknowledged); the run's key and the job ids
// make re-deliveries and duplicates the same run and no new jobs.
import { createHash } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import type {
  InboundBodyCheck,
  InboundEventHandler,
  InboundReply,
  InboundRequest,
} from '../../connectors/types.ts';
import { type EnrichJob, jobForEvent } from '../../queues/enrich-queue.ts';
import { RETRY_AFTER_SECONDS } from '../api/unavailable.ts';
import { contentTypeProblem } from '../shared/content-type.ts';
import type { Store } from '../store/store.ts';
import { readBody } from './read-body.ts';

export interface WebhookReceiverOptions {
  /** The public URL prefix the CRM calls (scheme and host), when we sit behind a proxy. */
  publicBaseUrl?: string | undefined;
  /**
   * A delivery's signature failed against `publicBaseUrl` but holds for the address it arrived at
   * (scheme and Host as received): PUBLIC_BASE_URL is not where the CRM posts, and every signed delivery
   * fails. Called once per such delivery; the delivery is still refused.
   */
  onMisaddressed?: (detail: { publicBaseUrl: string; arrivedAt: string }) => void;
  /**
   * Adds the jobs to the queue (queue.addBulk); must resolve only once they are in Redis. Resolving to
   * `{ added }` (new-jobs.ts) lets the answer tell a re-delivery's duplicates from new work.
   */
  enqueue: (jobs: EnrichJob[]) => Promise<unknown>;
  attempts: number;
  maxBodyBytes?: number;
  /** Where each delivery that queues work is recorded as a run before its jobs are queued. */
  store: Pick<Store, 'open'>;
  /** The CRM's name for people, in the run's label: "HubSpot webhook: 3 events". */
  crmLabel: string;
  /**
   * Inbound events enrich one account at most once per this window, whatever their event or
   * notification ids (a forged or runaway repeat is no new work). 0: no window.
   */
  accountWindowMs?: number;
}

function send(res: Response, reply: InboundReply): void {
  res.status(reply.status).type(reply.contentType).send(reply.body);
}

/** The CRM's "retry later", with the Retry-After every route's 503 carries (src/api/unavailable.ts). */
function unavailable(res: Response, handler: InboundEventHandler): void {
  res.set('Retry-After', String(RETRY_AFTER_SECONDS));
  send(res, handler.unavailable());
}

/** A refusal before the body was read whole: the rest is dropped with the connection (no waiting). */
function refuse(res: Response, reply: InboundReply): void {
  res.set('Connection', 'close');
  send(res, reply);
}

/** The run's key: the same for a re-delivery (by the handler's delivery id, else by the body). */
export function webhookRunKey(kind: string, deliveryId: string | undefined, body: string): string {
  const what = deliveryId === undefined ? `body ${body}` : `delivery ${deliveryId}`;
  return `webhook:${kind}:${createHash('sha256').update(what).digest('hex')}`;
}

export function webhookReceiver(
  handler: InboundEventHandler,
  options: WebhookReceiverOptions,
): express.Router {
  const router = express.Router();
  const urlOf = (req: Request) =>
    `${options.publicBaseUrl?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host')}`}${req.originalUrl}`;
  const headersOf = (req: Request) => {
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(req.headers))
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    return headers;
  };
  const arrivedAt = (req: Request) => `${req.protocol}://${req.get('host')}${req.originalUrl}`;
  /**
   * The handler's streamed check against PUBLIC_BASE_URL; with one set that differs from where the
   * request arrived, a second check against the arrival address runs beside it, only to say which
   * address the signature was made for when the first refuses (a signature covers the URL).
   */
  const bodyCheck = (head: Omit<InboundRequest, 'body'>, req: Request): InboundBodyCheck | undefined => {
    const check = handler.bodyCheck?.(head);
    const { onMisaddressed, publicBaseUrl } = options;
    const arrived = arrivedAt(req);
    if (!check || !onMisaddressed || !publicBaseUrl || arrived === head.url) return check;
    const other = handler.bodyCheck?.({ ...head, url: arrived });
    if (!other) return check;
    return {
      update(chunk) {
        check.update(chunk);
        other.update(chunk);
      },
      end() {
        const refused = check.end();
        if (refused && !other.end()) onMisaddressed({ publicBaseUrl, arrivedAt: arrived });
        return refused;
      },
    };
  };
  router.post('/', async (req: Request, res: Response) => {
    const problem = contentTypeProblem(req.get('content-type'), handler.contentTypes);
    if (problem)
      return refuse(
        res,
        handler.rejected({ status: 415, error: 'unsupported_media_type', message: problem }),
      );
    // Authentication that needs no body comes before reading it: a wrong token costs nothing more.
    const head = { method: req.method, url: urlOf(req), headers: headersOf(req) };
    const refused = handler.admits?.(head);
    if (refused) return refuse(res, handler.rejected(refused));
    const max = Math.min(
      options.maxBodyBytes ?? 1024 * 1024,
      handler.maxBodyBytes ?? Number.POSITIVE_INFINITY,
    );
    const read = await readBody(req, max, bodyCheck(head, req));
    if (!read.ok) {
      if (read.refusal) refuse(res, handler.rejected(read.refusal));
      return;
    }
    const body = read.body.toString('utf8');
    const parsed = handler.parse({ method: req.method, url: urlOf(req), headers: headersOf(req), body });
    if (!parsed.ok) return send(res, handler.rejected(parsed));

    let added: number | undefined;
    const jobs = new Map<string, EnrichJob>();
    for (const event of parsed.events) {
      const job = jobForEvent(event, options.attempts, options.accountWindowMs ?? 0);
      if (!jobs.has(job.opts.jobId ?? '')) jobs.set(job.opts.jobId ?? '', job);
    }
    if (jobs.size) {
      let runId: string;
      try {
        const { runs } = await options.store.open();
        const n = parsed.received;
        const run = await runs.create({
          kind: 'webhook',
          key: webhookRunKey(handler.kind, parsed.deliveryId, body),
          label: `${options.crmLabel} webhook: ${n} event${n === 1 ? '' : 's'}`,
          counts: { received: n, queued: jobs.size },
        });
        runId = run.id;
      } catch {
        // Nothing queued: the CRM's retry finds the store back and loses nothing.
        return unavailable(res, handler);
      }
      try {
        // The delivery's request id rides along into the jobs' log lines (src/service/http-app.ts sets it).
        const requestId = typeof res.locals.requestId === 'string' ? res.locals.requestId : undefined;
        const outcome = await options.enqueue(
          [...jobs.values()].map((j) => ({
            ...j,
            data: { ...j.data, runId, ...(requestId ? { requestId } : {}) },
          })),
        );
        if (outcome && typeof (outcome as { added?: unknown }).added === 'number')
          added = (outcome as { added: number }).added;
      } catch {
        return unavailable(res, handler);
      }
      // The request's log line names the run and the jobs it queued (http-app.ts): a delivery is
      // followed to its jobs' lines by their ids. The first 20 ids; the run holds them all.
      res.locals.queued = { runId, jobIds: [...jobs.keys()].slice(0, 20) };
    }
    send(
      res,
      handler.accepted({
        received: parsed.received,
        enqueued: added ?? jobs.size,
        ignored: parsed.received - jobs.size,
        ...(added !== undefined && added < jobs.size ? { duplicates: jobs.size - added } : {}),
      }),
    );
  });
  return router;
}
