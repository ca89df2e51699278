// Salesforce Outbound Messages (SOAP 1.1) → account events. The envelope's OrganizationId must be an org
// we hold credentials for; each Notification names an Account, and its notification id makes
// Salesforce's re-deliveries (it may deliver twice, and retries for 24 h without an ack) the same work.
// Salesforce never sends a DTD, so any DOCTYPE/ENTITY is refused before parsing (no entity expansion).
import { XMLParser } from 'fast-xml-parser';
import { z } from 'zod';
import { formatPath } from '../../src/shared/format-path.ts';
import type { AccountEvent, InboundEventHandler, InboundReply } from '../types.ts';

export const SALESFORCE_MAX_NOTIFICATIONS = 100;

const SF_ID = /^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/;
const sfId = z.string().trim().regex(SF_ID, 'is not a Salesforce id');

/** The 15-character form: orgs and records are configured either way. */
export const id15 = (id: string) => id.slice(0, 15);

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
 * A SOAP 1.1 fault. A bad request is the sender's fault (soapenv:Client) and answered 4xx; a queue
 * outage is ours (soapenv:Server, 503) and Salesforce retries it.
 */
function fault(status: number, code: 'Client' | 'Server', message: string): InboundReply {
  return {
    status,
    contentType: 'text/xml; charset=utf-8',
    body:
      '<?xml version="1.0" encoding="UTF-8"?>' +
      '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><soapenv:Fault>' +
      `<faultcode>soapenv:${code}</faultcode><faultstring>${escapeXml(message)}</faultstring>` +
      '</soapenv:Fault></soapenv:Body></soapenv:Envelope>',
  };
}

export interface OutboundMessageOptions {
  /** Orgs we hold credentials for, asked with the 15-character id. */
  isKnownOrg: (orgId15: string) => boolean;
}

export function salesforceOutboundHandler(options: OutboundMessageOptions): InboundEventHandler {
  return {
    kind: 'salesforce',
    parse(request) {
      const xml = request.body;
      const bad = (message: string) => ({
        ok: false as const,
        status: 400 as const,
        error: 'invalid_envelope',
        message,
      });
      if (!xml.trim()) return bad('empty body: expected a SOAP envelope');
      if (/<!(DOCTYPE|ENTITY)/i.test(xml)) return bad('DOCTYPE and ENTITY declarations are not accepted');
      let parsed: unknown;
      try {
        parsed = parser.parse(xml, true);
      } catch (err) {
        return bad(`malformed XML: ${(err as Error).message.split('\n')[0]}`);
      }
      const envelope = envelopeSchema.safeParse(parsed);
      if (!envelope.success) {
        const issue = envelope.error.issues[0];
        return bad(
          `not an Outbound Message: ${formatPath(issue?.path ?? [])} ${issue?.message ?? ''}`.trim(),
        );
      }
      const { OrganizationId, Notification } = envelope.data.Envelope.Body.notifications;
      const org = id15(OrganizationId);
      if (!options.isKnownOrg(org))
        return {
          ok: false,
          status: 403,
          error: 'unknown_org',
          message: `unknown OrganizationId ${OrganizationId}`,
        };
      const events: AccountEvent[] = [];
      for (const n of Notification) {
        // Only Account messages enrich; another object's message is acknowledged and ignored.
        if (n.sObject['@_type'] && !/(^|:)Account$/.test(n.sObject['@_type'])) continue;
        events.push({
          crm: 'salesforce',
          tenant: org,
          accountId: n.sObject.Id,
          change: 'created',
          dedupeParts: [id15(n.sObject.Id), id15(n.Id)],
          cause: `outbound message ${n.Id}`,
        });
      }
      // The notification ids name the message: a re-delivery carries the same ones.
      const deliveryId = `${org} notifications ${Notification.map((n) => id15(n.Id)).join(',')}`;
      return { ok: true, received: Notification.length, events, deliveryId };
    },
    accepted: () => ({ status: 200, contentType: 'text/xml; charset=utf-8', body: ACK }),
    rejected: ({ status, message }) => fault(status, 'Client', message),
    unavailable: () => fault(503, 'Server', 'could not queue the notifications; retry later'),
  };
}
