// POST /webhooks/salesforce: Salesforce Outbound Messages (SOAP 1.1) → one enrich job per Account.
// The envelope's OrganizationId must be an org we hold credentials for; each Notification becomes a
// job whose id (org + Account + notification id) makes Salesforce's re-deliveries no-ops. We answer
// `<Ack>true</Ack>` only once the jobs are in Redis: without an ack Salesforce keeps retrying for 24 h,
// so nothing is lost. Malformed envelopes and unknown orgs get a SOAP fault and enqueue nothing.
// Salesforce never sends a DTD, so any DOCTYPE/ENTITY is refused before parsing (no entity expansion).
import express, { type NextFunction, type Request, type Response } from 'express';
import { XMLParser } from 'fast-xml-parser';
import { z } from 'zod';
import { type EnrichJobData, enrichJobOptions, jobIdOf } from '../../queues/enrich-queue.ts';
import { formatPath } from '../shared/format-path.ts';

export const SALESFORCE_MAX_NOTIFICATIONS = 100;

const SF_ID = /^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/;
const sfId = z.string().trim().regex(SF_ID, 'is not a Salesforce id');

const envelopeSchema = z.object({
  Envelope: z.object({
    Body: z.object({
      notifications: z.object({
        OrganizationId: sfId,
        ActionId: z.string().optional(),
        Notification: z
          .array(
            z.object({
              Id: sfId,
              sObject: z.looseObject({ Id: sfId, '@_type': z.string().optional() }),
            }),
          )
          .min(1, 'no Notification')
          .max(SALESFORCE_MAX_NOTIFICATIONS, `more than ${SALESFORCE_MAX_NOTIFICATIONS} notifications`),
      }),
    }),
  }),
});

const parser = new XMLParser({
  ignoreAttributes: false,
  removeNSPrefix: true,
  processEntities: false,
  parseTagValue: false,
  isArray: (name) => name === 'Notification',
});

/** The 15-character form: orgs and records are configured either way. */
export const id15 = (id: string) => id.slice(0, 15);

export interface QueuedSalesforceJob {
  name: string;
  data: EnrichJobData;
  opts: ReturnType<typeof enrichJobOptions>;
}

export interface SalesforceOutboundOptions {
  /** Orgs we hold credentials for (15- or 18-character ids). */
  isKnownOrg: (orgId15: string) => boolean;
  enqueue: (jobs: QueuedSalesforceJob[]) => Promise<unknown>;
  attempts: number;
  maxBodyBytes?: number;
}

const ACK =
  '<?xml version="1.0" encoding="UTF-8"?>' +
  '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
  '<notificationsResponse xmlns="http://soap.sforce.com/2005/09/outbound"><Ack>true</Ack></notificationsResponse>' +
  '</soapenv:Body></soapenv:Envelope>';

const escapeXml = (s: string) =>
  s.replace(
    /[<>&'"]/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c,
  );

/**
 * A SOAP 1.1 fault. The bad request is the sender's fault (soapenv:Client) and answered 4xx, as every
 * bad input here is; a queue outage is ours (soapenv:Server, 503) and Salesforce retries it.
 */
function fault(res: Response, status: number, code: 'Client' | 'Server', message: string): void {
  res
    .status(status)
    .type('text/xml; charset=utf-8')
    .send(
      '<?xml version="1.0" encoding="UTF-8"?>' +
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><soapenv:Fault>' +
        `<faultcode>soapenv:${code}</faultcode><faultstring>${escapeXml(message)}</faultstring>` +
        '</soapenv:Fault></soapenv:Body></soapenv:Envelope>',
    );
}

export function salesforceOutboundRouter(options: SalesforceOutboundOptions): express.Router {
  const router = express.Router();
  router.post(
    '/',
    express.raw({ type: () => true, limit: options.maxBodyBytes ?? 1024 * 1024 }),
    async (req: Request, res: Response) => {
      const xml = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      if (!xml.trim()) return fault(res, 400, 'Client', 'empty body: expected a SOAP envelope');
      if (/<!(DOCTYPE|ENTITY)/i.test(xml))
        return fault(res, 400, 'Client', 'DOCTYPE and ENTITY declarations are not accepted');
      let parsed: unknown;
      try {
        parsed = parser.parse(xml, true);
      } catch (err) {
        return fault(res, 400, 'Client', `malformed XML: ${(err as Error).message.split('\n')[0]}`);
      }
      const envelope = envelopeSchema.safeParse(parsed);
      if (!envelope.success) {
        const issue = envelope.error.issues[0];
        return fault(
          res,
          400,
          'Client',
          `not an Outbound Message: ${formatPath(issue?.path ?? [])} ${issue?.message ?? ''}`.trim(),
        );
      }
      const { OrganizationId, Notification } = envelope.data.Envelope.Body.notifications;
      const org = id15(OrganizationId);
      if (!options.isKnownOrg(org))
        return fault(res, 403, 'Client', `unknown OrganizationId ${OrganizationId}`);

      const jobs: QueuedSalesforceJob[] = [];
      const seen = new Set<string>();
      for (const n of Notification) {
        // Only Account messages enrich; another object's message is acknowledged and ignored.
        if (n.sObject['@_type'] && !/(^|:)Account$/.test(n.sObject['@_type'])) continue;
        const accountId = n.sObject.Id;
        const jobId = jobIdOf('salesforce', org, id15(accountId), id15(n.Id));
        if (seen.has(jobId)) continue;
        seen.add(jobId);
        jobs.push({
          name: 'enrich',
          data: {
            crm: 'salesforce',
            tenant: org,
            accountId,
            trigger: 'webhook',
            cause: `outbound message ${n.Id}`,
          },
          opts: enrichJobOptions('webhook', options.attempts, jobId),
        });
      }
      try {
        if (jobs.length) await options.enqueue(jobs);
      } catch {
        return fault(res, 503, 'Server', 'could not queue the notifications; retry later');
      }
      res.status(200).type('text/xml; charset=utf-8').send(ACK);
    },
  );
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if ((err as { type?: string }).type === 'entity.too.large')
      return fault(res, 413, 'Client', 'the body is too large');
    next(err);
  });
  return router;
}
