// Salesforce Outbound Messages (SOAP 1.1) → account events. The OrganizationId is no secret, so every
// message must carry the org's outbound token in the endpoint URL (`?token=`, set in the Outbound
// Message's Endpoint URL; two may be active while one is rotated), compared in constant time; the
// OrganizationId must then be an org we hold credentials for, checked on all 18 characters. Each
// Notification names an Account, and its notification id makes Salesforce's re-deliveries (it may
// deliver twice, and retries for 24 h without an ack) the same work. Salesforce never sends a DTD, so
// any DOCTYPE/ENTITY is refused before parsing (no entity expansion).
import { timingSafeEqual } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { z } from 'zod';
import { formatPath } from '../../src/shared/format-path.ts';
import type { AccountEvent, InboundEventHandler, InboundReply } from '../types.ts';
import { id15, isSalesforceId, salesforceId18 } from './ids.ts';

export { id15 };

export const SALESFORCE_MAX_NOTIFICATIONS = 100;

const sfId = z
  .string()
  .trim()
  .refine((id) => isSalesforceId(id), 'is not a Salesforce id (15 or 18 characters, checksum)');

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
  /** Orgs we hold credentials for, asked with the 15-character id of a checksum-checked org id. */
  isKnownOrg: (orgId15: string) => boolean;
  /** The org's active outbound tokens (none: its messages are all refused). */
  tokensOf: (orgId15: string) => readonly string[];
}

const sameToken = (given: string, tokens: readonly string[]): boolean => {
  const a = Buffer.from(given);
  // Every token is compared, so the time taken does not tell which one (or whether one) came close.
  let match = false;
  for (const token of tokens) {
    const b = Buffer.from(token);
    if (a.length === b.length && timingSafeEqual(a, b)) match = true;
  }
  return match;
};

export function salesforceOutboundHandler(options: OutboundMessageOptions): InboundEventHandler {
  return {
    kind: 'salesforce',
    // SOAP 1.1 is text/xml; a SOAP 1.2 client would say application/soap+xml.
    contentTypes: ['text/xml', 'application/soap+xml'],
    parse(request) {
      const token = new URL(request.url).searchParams.get('token');
      if (!token)
        return {
          ok: false,
          status: 401,
          error: 'missing_token',
          message: 'the endpoint URL must carry the org outbound token (?token=)',
        };
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
      // One answer for an unknown org and a wrong token: the reply does not tell which orgs we serve.
      if (!options.isKnownOrg(org) || !sameToken(token, options.tokensOf(org)))
        return {
          ok: false,
          status: 403,
          error: 'forbidden',
          message: `the token is not valid for OrganizationId ${OrganizationId}`,
        };
      const events: AccountEvent[] = [];
      for (const n of Notification) {
        // Only Account messages enrich; another object's message is acknowledged and ignored.
        if (n.sObject['@_type'] && !/(^|:)Account$/.test(n.sObject['@_type'])) continue;
        events.push({
          crm: 'salesforce',
          tenant: org,
          // One Account, one id: a 15-character Id is stored and windowed as its 18-character form.
          accountId: salesforceId18(n.sObject.Id) ?? n.sObject.Id,
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
