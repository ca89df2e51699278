// The fuzz's inbound routes (issue 45): HubSpot's webhook, Salesforce's Outbound Messages, the
// provider's Standard Webhooks, and our API called as the HubSpot card and the Salesforce quick action
// sign it. Most plans are signed as the sender would (the sender signs at send time, fuzz-target.ts),
// so the bodies reach the parsers behind the signatures; the rest are unsigned, wrongly signed, stale.
import fc from 'fast-check';
import { ROW_EVENT_TYPES } from '../../src/signals/events.ts';
import { hugeId, nastyJson, nastyString, sometimes } from './fuzz.ts';
import {
  type Auth,
  apiOperations,
  bodyValue,
  encode,
  type FuzzIds,
  jsonBody,
  operationPlans,
  type Plan,
  type SignMode,
} from './fuzz-routes.ts';
import { headerSafe, stringClass } from './fuzz-strings.ts';
import {
  deepJson,
  edgeDate,
  edgeEpochMs,
  hugeNumber,
  jsonText,
  RawJson,
  wideJson,
} from './fuzz-structures.ts';
import { outboundXml } from './fuzz-xml.ts';

/** Mostly valid: a wrong signature is refused before anything else runs, so it explores little. */
const signMode: fc.Arbitrary<SignMode> = fc.oneof(
  { weight: 14, arbitrary: fc.constant('valid' as const) },
  { weight: 1, arbitrary: fc.constantFrom('none', 'wrong-secret', 'stale', 'future', 'garbage') },
);

const contentType = (usual: string, others: string[]) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(usual) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        ...others,
        `${usual}; charset=utf-8`,
        `${usual};charset=UTF-16`,
        `${usual.toUpperCase()}`,
        'text/plain',
        '',
        '*/*',
      ),
    },
    { weight: 1, arbitrary: nastyString.map(headerSafe) },
  );

const headerValue = fc.oneof(nastyString, stringClass).map(headerSafe);
const nastyQuery = sometimes(
  fc.tuple(nastyString, nastyString).map(([k, v]) => `${encode(k)}=${encode(v)}`),
  10,
);

/** An id-like JSON value: valid, huge, negative, fractional, a digit string, or anything. */
const idValue = (valid: string): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(Number(valid), valid) },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 53 + 1, '0012', ' 12', '1e3') },
    { weight: 1, arbitrary: hugeId },
    { weight: 1, arbitrary: hugeNumber },
    { weight: 1, arbitrary: nastyJson },
  );

/** A HubSpot event: each field valid or not, and a key of its own now and then. */
const hubspotEvent = (ids: FuzzIds) =>
  fc
    .record({
      eventId: fc.oneof(fc.integer({ min: 1, max: 2 ** 31 }), hugeNumber, nastyJson),
      subscriptionId: fc.oneof(fc.constant(1), nastyJson),
      portalId: idValue(ids.portalId),
      appId: fc.oneof(fc.constant(1), nastyJson),
      occurredAt: fc.oneof(edgeEpochMs, fc.constant(new RawJson('1764633600000')), nastyJson, edgeDate),
      subscriptionType: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('company.creation', 'company.propertyChange') },
        {
          weight: 1,
          arbitrary: fc.constantFrom('contact.creation', 'company.deletion', 'company.merge', ''),
        },
        { weight: 1, arbitrary: nastyJson },
      ),
      attemptNumber: sometimes(fc.oneof(fc.integer({ min: 0, max: 10 }), hugeNumber, nastyJson), 50),
      objectId: idValue(ids.companyId),
      changeFlag: sometimes(fc.oneof(fc.constantFrom('CREATED', 'NEW'), nastyJson), 50),
      changeSource: sometimes(fc.oneof(fc.constantFrom('CRM_UI', 'INTEGRATION', 'API'), nastyJson), 50),
      sourceId: sometimes(fc.oneof(fc.constantFrom('1', 'userId:7'), nastyJson), 30),
      propertyName: sometimes(
        fc.oneof(fc.constantFrom('name', 'state', 'buyer_intel_status', 'domain'), nastyJson),
        50,
      ),
      propertyValue: sometimes(fc.oneof(fc.string(), nastyJson), 40),
      extra: sometimes(fc.tuple(nastyString, bodyValue), 10),
    })
    .map(({ extra, ...event }) => (extra ? { ...event, [extra[0]]: extra[1] } : event));

/** A batch: a few events, exactly the bound of 100 or one past it, or no array at all. */
const hubspotBody = (ids: FuzzIds) => {
  const one = hubspotEvent(ids);
  return fc.oneof(
    { weight: 10, arbitrary: fc.array(one, { minLength: 1, maxLength: 4 }).map(jsonText) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(one, fc.constantFrom(0, 99, 100, 101, 1_000))
        .map(([e, n]) => jsonText(Array.from({ length: n }, () => e))),
    },
    { weight: 1, arbitrary: one.map(jsonText) },
    { weight: 2, arbitrary: jsonBody(fc.constant({})) },
    { weight: 1, arbitrary: fc.oneof(deepJson, wideJson).map((r) => r.text) },
  );
};

const UUID = () => fc.uuid({ version: 4 });

/** A Standard Webhooks event of the provider: a row event (each field valid or not) or another type. */
const providerBody: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc
      .record({
        type: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...ROW_EVENT_TYPES) },
          { weight: 1, arbitrary: fc.constantFrom('bridge.deleted', 'bridge.row.deleted', '') },
          { weight: 1, arbitrary: nastyJson },
        ),
        timestamp: fc.oneof(edgeDate, fc.constant(null), nastyJson),
        data: fc.oneof(
          {
            weight: 6,
            arbitrary: fc.record({
              rowId: fc.oneof({ weight: 4, arbitrary: UUID() }, { weight: 1, arbitrary: nastyJson }),
              bridgeId: fc.oneof({ weight: 4, arbitrary: UUID() }, { weight: 1, arbitrary: nastyJson }),
              name: sometimes(fc.oneof(stringClass, nastyJson), 60),
              status: sometimes(fc.oneof(fc.constantFrom('Processed', 'Pending'), nastyJson), 50),
              updatedAt: sometimes(fc.oneof(edgeDate, nastyJson), 60),
            }),
          },
          { weight: 1, arbitrary: bodyValue },
        ),
      })
      .map(jsonText),
  },
  { weight: 2, arbitrary: jsonBody(fc.constant({})) },
  { weight: 1, arbitrary: fc.oneof(deepJson, wideJson).map((r) => r.text) },
);

/** Every inbound route kind's plans, given the target's ids. */
export function inboundPlans(ids: FuzzIds) {
  const webhookPath = (path: string) => nastyQuery.map((q) => (q ? `${path}?${q}` : path));

  const hubspotWebhook: fc.Arbitrary<Plan> = fc
    .record({
      path: webhookPath('/webhooks/hubspot'),
      type: contentType('application/json', ['application/xml']),
      body: hubspotBody(ids),
      mode: signMode,
    })
    .map(({ path, type, body, mode }) => ({
      kind: 'hubspot-webhook',
      route: 'POST /webhooks/hubspot',
      method: 'POST',
      path,
      headers: { 'content-type': type },
      body,
      auth: { as: 'hubspot', mode },
    }));

  const salesforceOutbound: fc.Arbitrary<Plan> = fc
    .record({
      token: fc.oneof(
        { weight: 14, arbitrary: fc.constant<SignMode>('valid') },
        { weight: 1, arbitrary: fc.constantFrom<SignMode>('none', 'wrong-secret', 'garbage') },
      ),
      query: nastyQuery,
      type: contentType('text/xml', ['application/soap+xml', 'application/xml']),
      body: outboundXml({ orgId: ids.orgId }),
    })
    .map(({ token, query, type, body }) => ({
      kind: 'salesforce-outbound',
      route: 'POST /webhooks/salesforce',
      method: 'POST',
      path: query ? `/webhooks/salesforce?${query}` : '/webhooks/salesforce',
      headers: { 'content-type': type, soapaction: '""' },
      body,
      // The token goes in the URL; the sender adds it, like a signature.
      auth: { as: 'outbound-token', mode: token },
    }));

  const providerWebhook: fc.Arbitrary<Plan> = fc
    .record({
      type: contentType('application/json', []),
      body: providerBody,
      mode: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('hmac' as const, 'both' as const) },
        { weight: 7, arbitrary: signMode },
      ),
      id: sometimes(fc.oneof(headerValue, fc.constantFrom('msg_1', 'x'.repeat(257), '{bull}:1')), 15),
      timestamp: sometimes(
        fc.oneof(headerValue, fc.constantFrom('0', '-1', '1e10', '999999999999', '9999999999999', '0x10')),
        10,
      ),
    })
    .map(({ type, body, mode, id, timestamp }) => ({
      kind: 'buyer-intel-webhook',
      route: 'POST /webhooks/buyer-intel',
      method: 'POST',
      path: '/webhooks/buyer-intel',
      headers: { 'content-type': type },
      body,
      auth: { as: 'standard-webhooks', mode, id: id ?? null, timestamp: timestamp ?? null },
    }));

  // The card: HubSpot appends portalId and userId (and the user's email) to the URL it signs.
  const cardQuery = fc
    .record({
      portalId: fc.oneof(
        { weight: 8, arbitrary: fc.constant(ids.portalId) },
        { weight: 1, arbitrary: fc.oneof(nastyString, hugeId) },
      ),
      userId: fc.oneof({ weight: 4, arbitrary: fc.constant('7') }, { weight: 1, arbitrary: nastyString }),
      userEmail: sometimes(fc.oneof(fc.constant('jane@city.example'), nastyString), 30),
    })
    .map(({ portalId, userId, userEmail }): [string, string][] => [
      ['portalId', portalId],
      ['userId', userId],
      ...(userEmail === undefined ? [] : [['userEmail', userEmail] as [string, string]]),
    ]);
  const hubspotAuth = signMode.map((mode): Auth => ({ as: 'hubspot', mode }));
  const hubspotSigned = operationPlans('hubspot-signed', apiOperations(), ids, hubspotAuth, cardQuery);

  const salesforceAuth = fc
    .record({
      mode: signMode,
      org: fc.oneof(
        { weight: 16, arbitrary: fc.constant(ids.orgId) },
        { weight: 1, arbitrary: fc.constant(ids.orgId.slice(0, 15)) },
        { weight: 1, arbitrary: headerValue },
      ),
      user: fc.oneof(
        { weight: 4, arbitrary: fc.constant('jane.doe@acme.example') },
        { weight: 1, arbitrary: headerValue },
      ),
      nonce: sometimes(headerValue, 10),
    })
    .map(({ mode, org, user, nonce }): Auth => ({ as: 'salesforce', mode, org, user, nonce: nonce ?? null }));
  const salesforceSigned = operationPlans('salesforce-signed', apiOperations(), ids, salesforceAuth);

  return { hubspotWebhook, salesforceOutbound, providerWebhook, hubspotSigned, salesforceSigned };
}
