// One account, one id: a Salesforce Account named by its 15- or its 18-character id, or a HubSpot
// company by "0042" or 42, is one account at every door — one job window, one outcome row, one
// decision history.
import { createHmac, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubspotEventHandler } from '../../connectors/hubspot/events.ts';
import { canonicalAccountId } from '../../connectors/registry.ts';
import { salesforceId18 } from '../../connectors/salesforce/ids.ts';
import { salesforceOutboundHandler } from '../../connectors/salesforce/outbound-messages.ts';
import type { AccountEvent } from '../../connectors/types.ts';
import { createEnrichQueue, jobForEvent } from '../../queues/enrich-queue.ts';
import { ActionProblem } from '../../src/review/problem.ts';
import { reviewService } from '../../src/review/service.ts';
import { Store } from '../../src/store/store.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

const ORG18 = '00D5g0000007C9REAU';
const ACCOUNT18 = '001Dn000000LmjeIAC';
const ACCOUNT15 = ACCOUNT18.slice(0, 15);

describe('the canonical id of an account', () => {
  it('is the 18-character form of a Salesforce Account id and the decimal text of a HubSpot id', () => {
    expect(canonicalAccountId('salesforce', ACCOUNT15)).toBe(ACCOUNT18);
    expect(canonicalAccountId('salesforce', ACCOUNT18)).toBe(ACCOUNT18);
    // A wrong checksum, another object's id and a wrong shape are no Account ids.
    expect(canonicalAccountId('salesforce', `${ACCOUNT15}AAA`)).toBeUndefined();
    expect(canonicalAccountId('salesforce', ORG18)).toBeUndefined();
    expect(canonicalAccountId('salesforce', '001Dn000000Lmj')).toBeUndefined();
    expect(canonicalAccountId('hubspot', '0021438460428')).toBe('21438460428');
    expect(canonicalAccountId('hubspot', ' 42 ')).toBe('42');
    expect(canonicalAccountId('hubspot', '0')).toBeUndefined();
    expect(canonicalAccountId('hubspot', '18446744073709551616')).toBeUndefined();
    expect(canonicalAccountId('hubspot', '4.2e1')).toBeUndefined();
  });
});

const envelope = (accountId: string, notificationId: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/">
 <soapenv:Body>
  <notifications xmlns="http://soap.sforce.com/2005/09/outbound">
   <OrganizationId>${ORG18}</OrganizationId>
   <Notification>
    <Id>${notificationId}</Id>
    <sObject xsi:type="sf:Account" xmlns:sf="urn:sobject.enterprise.soap.sforce.com" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
     <sf:Id>${accountId}</sf:Id>
    </sObject>
   </Notification>
  </notifications>
 </soapenv:Body>
</soapenv:Envelope>`;

function outboundEvent(accountId: string, notificationId: string): AccountEvent {
  const handler = salesforceOutboundHandler({ isKnownOrg: () => true, tokensOf: () => ['t0ken'] });
  const parsed = handler.parse({
    method: 'POST',
    url: 'https://sync.example/webhooks/salesforce?token=t0ken',
    headers: { 'content-type': 'text/xml' },
    body: envelope(accountId, notificationId),
  });
  if (!parsed.ok) throw new Error(parsed.message);
  const [event] = parsed.events;
  if (!event) throw new Error('no event');
  return event;
}

describe('webhooks', () => {
  it('a 15-character Account id in an Outbound Message shares the 18-character id’s inbound window', () => {
    const short = outboundEvent(ACCOUNT15, salesforceId18('04l5g0000000001') ?? '');
    const long = outboundEvent(ACCOUNT18, salesforceId18('04l5g0000000002') ?? '');
    expect(short.accountId).toBe(ACCOUNT18);
    const a = jobForEvent(short, 3, 60_000);
    const b = jobForEvent(long, 3, 60_000);
    expect(a.data.accountId).toBe(ACCOUNT18);
    expect(a.opts.deduplication?.id).toBe(b.opts.deduplication?.id);
  });

  it('a HubSpot objectId given as "0042" or 42 is company 42', () => {
    const handler = hubspotEventHandler({ clientSecret: 's', isKnownPortal: () => true });
    // Signature checks are covered elsewhere; the id schema is what is under test here.
    const ids = ['0042', 42].map((objectId) => {
      const body = JSON.stringify([
        { eventId: 1, subscriptionType: 'company.creation', portalId: 7, objectId, occurredAt: 1 },
      ]);
      const parsed = handler.parse(signedHubSpot(body));
      if (!parsed.ok) throw new Error(parsed.message);
      return parsed.events[0]?.accountId;
    });
    expect(ids).toEqual(['42', '42']);
  });
});

function signedHubSpot(body: string) {
  const url = 'https://sync.example/webhooks/hubspot';
  const timestamp = String(Date.now());
  const signature = createHmac('sha256', 's').update(`POST${url}${body}${timestamp}`).digest('base64');
  return {
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/json',
      'x-hubspot-signature-v3': signature,
      'x-hubspot-request-timestamp': timestamp,
    },
    body,
  };
}

describe('a person’s decision', () => {
  let store: Store;
  let redis: Redis;
  const prefix = `test-canonical-ids-${randomUUID()}`;
  let queue: ReturnType<typeof createEnrichQueue>;
  beforeAll(async () => {
    store = new Store(await serviceDatabase());
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    queue = createEnrichQueue(redis, { prefix });
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
    await store.close();
  });

  it('on a 15-character id lands on the 18-character id’s account, and a bad id is a 400', async () => {
    const review = reviewService({ store, queue, attempts: 1 });
    const actor = { kind: 'cli' as const, name: 'you' };
    await review.reject(
      { crm: 'salesforce', tenant: ORG18.slice(0, 15), accountId: ACCOUNT15 },
      'a vendor',
      actor,
    );
    const { decisions, review: pins } = await store.open();
    const key = { crm: 'salesforce' as const, tenant: ORG18.slice(0, 15), accountId: ACCOUNT18 };
    expect((await decisions.forAccount(key)).map((d) => d.action)).toEqual(['reject']);
    expect(await pins.unpin(key)).toBe(true);
    const jobs = await queue.getJobs(['waiting', 'prioritized', 'delayed']);
    expect(jobs.map((j) => j.data.accountId)).toEqual([ACCOUNT18]);
    const bad = review.reject({ crm: 'salesforce', tenant: 'x', accountId: `${ACCOUNT15}AAA` }, 'x', actor);
    await expect(bad).rejects.toBeInstanceOf(ActionProblem);
    await expect(bad).rejects.toMatchObject({ status: 400, code: 'invalid_account_id' });
  });
});
