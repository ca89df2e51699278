// Text we write into a CRM from a header or a person's input carries no markup (issue 45, item 5): a
// Salesforce user header and a rejection's reason with tags end up in the account's "Rejected by …"
// field as plain words, through the quick action's v3-signed call and the HubSpot card's signed call,
// and so does the name a person re-searches with.
// Our pages escape such text; the CRM's own pages, reports and exports may not.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import { salesforceRequestSignatureV3 } from '../../connectors/salesforce/request-signature.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import { completedJob } from '../helpers/service.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

const SF_SECRET = randomBytes(32).toString('hex');
let t: TestService;

beforeAll(async () => {
  t = await startTestService({
    name: 'crm-markup',
    fields: true,
    startWorker: true,
    settings: (s) => ({
      ...s,
      crms: { ...s.crms, salesforce: { ...(s.crms.salesforce as object), requestSecrets: [SF_SECRET] } },
    }),
  });
});
afterAll(async () => {
  await t?.close();
});

const post = async (path: string, body: string, headers: Record<string, string>) => {
  const res = await fetch(`${t.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as { jobId?: string } };
};

const MARKUP = /[<>]/;

describe('a rejection written into the CRM', () => {
  it('holds no markup from a Salesforce user header or the reason (quick action, v3)', async () => {
    const sf = t.sf;
    if (!sf) throw new Error('no Salesforce emulator');
    const user = '<img/src=x/onerror=alert(1)>jane@acme.example';
    const id = sf.store.create('Account', { Name: 'Acme Paving Inc', BillingState: 'TX' }).id;
    const path = `/api/accounts/salesforce/${id}/reject`;
    const body = JSON.stringify({
      tenant: sf.orgId,
      reason: 'a <b>paving</b> contractor<br/>',
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(16).toString('hex');
    const signature = salesforceRequestSignatureV3(SF_SECRET, timestamp, nonce, sf.orgId, user, body);
    const res = await post(path, body, {
      'x-buyerintel-timestamp': timestamp,
      'x-buyerintel-nonce': nonce,
      'x-buyerintel-org': sf.orgId,
      'x-buyerintel-user': user,
      'x-buyerintel-signature': signature,
    });
    expect(res.status).toBe(202);
    await completedJob(t.service, String(res.body.jobId));
    const reason = String(sf.store.find('Account', id).values.get('BuyerIntel_MatchReason__c'));
    expect(reason).not.toMatch(MARKUP);
    expect(reason).not.toContain('onerror');
    expect(reason).toBe(
      `Rejected by salesforce ${sf.orgId.slice(0, 15)} jane@acme.example: a paving contractor`,
    );
  });

  it('holds no markup from the reason a HubSpot card user typed', async () => {
    const portal = String(t.hs.portalId);
    const id = t.hs.store.createCompany({ name: 'Acme Paving Inc', state: 'TX' }, { source: 'CRM_UI' }).id;
    const path = `/api/accounts/hubspot/${id}/reject?portalId=${portal}&userId=7&userEmail=jane%40example.com`;
    const body = JSON.stringify({ tenant: portal, reason: '<a href="javascript:x()">click</a> me\u0007 <' });
    const timestamp = String(Date.now());
    const res = await post(path, body, {
      'x-hubspot-signature-v3': hubspotSignatureV3(
        t.hs.clientSecret,
        'POST',
        `${t.base}${path}`,
        body,
        timestamp,
      ),
      'x-hubspot-request-timestamp': timestamp,
    });
    expect(res.status).toBe(202);
    await completedJob(t.service, String(res.body.jobId));
    const reason = String(t.hs.store.getCompany(id)?.values.get(P.matchReason));
    expect(reason).not.toMatch(MARKUP);
    expect(reason).toBe(`Rejected by hubspot ${portal} jane@example.com: click me`);
  });

  it('holds no markup from the name a person re-searches with', async () => {
    const portal = String(t.hs.portalId);
    const id = t.hs.store.createCompany({ name: 'Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    const path = `/api/accounts/hubspot/${id}/research?portalId=${portal}&userId=7&userEmail=jane%40example.com`;
    const body = JSON.stringify({
      tenant: portal,
      name: 'City of <i>Austin</i><svg/onload=x()>',
      state: 'TX',
    });
    const timestamp = String(Date.now());
    const res = await post(path, body, {
      'x-hubspot-signature-v3': hubspotSignatureV3(
        t.hs.clientSecret,
        'POST',
        `${t.base}${path}`,
        body,
        timestamp,
      ),
      'x-hubspot-request-timestamp': timestamp,
    });
    expect(res.status).toBe(202);
    await completedJob(t.service, String(res.body.jobId));
    const reason = String(t.hs.store.getCompany(id)?.values.get(P.matchReason));
    expect(reason).not.toMatch(MARKUP);
    expect(reason).toMatch(/^Re-searched by hubspot \d+ jane@example.com as "City of Austin" in TX: /);
  });
});
