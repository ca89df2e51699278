// Salesforce Outbound Messages (SOAP 1.1) → account events. The OrganizationId is no secret, so every
// message must carry the org's outbound token in the endpoint URL (`?token=`, set in the Outbound
// Message's Endpoint URL; two may be active while one is rotated), compared in constant time; the
// OrganizationId must then be an org we hold credentials for, checked on all 18 characters. Each
// Notification names an Account, and its notification id makes Salesforce's re-deliveries (it may
// deliver twice, and retries for 24 h without an ack) the same work. Salesforce never sends a DTD, so
// any DOCTYPE/ENTITY is refused before parsing (no entity expansion).
import { XMLParser } from 'fast-xml-parser';
import { z } from 'zod';
import { oneOf } from '../../src/shared/compare.ts';
import { formatPath } from '../../src/shared/format-path.ts';
import { xmlShapeProblem } from '../../src/shared/text.ts';
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
  /** The orgs served now: a token no org has is refused before the body is read. */
  orgs?: () => readonly string[];
}

/**
 * The OrganizationId as the envelope states it, found without parsing (a linear scan): the token is
 * checked against that org's before the XML is parsed, and the parsed envelope must then name the same
 * org. Salesforce writes it once, before the Notifications.
 */
/**
 * An Outbound Message carries a handful of attributes (namespaces, `xsi:type`) per Notification; a body
 * with thousands costs the parser seconds (90,000 took ~0.7 s each) even from an authenticated org, so
 * it is refused before parsing.
 */
export const SALESFORCE_MAX_ATTRIBUTES = 2_000;
/**
 * The same for elements: a message holds at most 100 Notifications (Salesforce's batch), each its
 * sObject's selected fields (we ask for Id and Name); 10,000 leaves room for ~90 fields each. 200,000
 * empty elements (~1 MB, under the body cap) cost the parser 1.4 s of the event loop.
 */
export const SALESFORCE_MAX_ELEMENTS = 10_000;
/**
 * An Outbound Message nests 6 levels (Envelope, Body, notifications, Notification, sObject, a field);
 * 9,000 levels under the element cap cost the parser ~0.7 s, so the depth is bounded in the same pass.
 */
export const SALESFORCE_MAX_DEPTH = 16;

const ORG_ID = /<(?:[A-Za-z_][\w.-]*:)?OrganizationId>\s*([A-Za-z0-9]{15,18})\s*<\//;

const tokenOf = (url: string): string | null => new URL(url).searchParams.get('token');
const missingToken = {
  ok: false as const,
  status: 401 as const,
  error: 'missing_token',
  message: 'the endpoint URL must carry the org outbound token (?token=)',
};
const forbidden = (message: string) => ({
  ok: false as const,
  status: 403 as const,
  error: 'forbidden',
  message,
});

export function salesforceOutboundHandler(options: OutboundMessageOptions): InboundEventHandler {
  return {
    kind: 'salesforce',
    // SOAP 1.1 is text/xml; a SOAP 1.2 client would say application/soap+xml.
    contentTypes: ['text/xml', 'application/soap+xml'],
    admits(request) {
      const token = tokenOf(request.url);
      if (!token) return missingToken;
      if (!options.orgs) return undefined;
      // Every served org's tokens are compared (constant time each): the time tells nothing.
      const any = options.orgs().some((org) => oneOf(token, options.tokensOf(id15(org))));
      return any ? undefined : forbidden('the token is not valid for any org served here');
    },
    parse(request) {
      const token = tokenOf(request.url);
      if (!token) return missingToken;
      const xml = request.body;
      const bad = (message: string) => ({
        ok: false as const,
        status: 400 as const,
        error: 'invalid_envelope',
        message,
      });
      if (!xml.trim()) return bad('empty body: expected a SOAP envelope');
      if (/<!(DOCTYPE|ENTITY)/i.test(xml)) return bad('DOCTYPE and ENTITY declarations are not accepted');
      const stated = ORG_ID.exec(xml)?.[1];
      if (!stated) return bad('not an Outbound Message: no OrganizationId');
      if (!isSalesforceId(stated))
        return bad(`OrganizationId ${stated} is not a Salesforce id (15 or 18 characters, checksum)`);
      // One answer for an unknown org and a wrong token: the reply does not tell which orgs we serve.
      const statedOrg = id15(stated);
      if (!options.isKnownOrg(statedOrg) || !oneOf(token, options.tokensOf(statedOrg)))
        return forbidden(`the token is not valid for OrganizationId ${stated}`);
      // One pass bounds elements, their depth and attributes before the parser builds anything.
      const shape = xmlShapeProblem(xml, {
        maxDepth: SALESFORCE_MAX_DEPTH,
        maxElements: SALESFORCE_MAX_ELEMENTS,
        maxAttributes: SALESFORCE_MAX_ATTRIBUTES,
      });
      if (shape) return bad(`${shape}: not an Outbound Message`);
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
      // The parsed org is the one the token was checked for (a second OrganizationId, a comment…).
      if (org !== statedOrg) return forbidden(`the token is not valid for OrganizationId ${OrganizationId}`);
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
