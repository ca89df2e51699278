// The refresh API as the CRM cards and operators use it, over real HTTP with real Redis and the
// emulators: who may call (API key, HubSpot v3 signature, Salesforce HMAC with a single-use nonce, its
// v2 naming the Salesforce user behind a decision, its v3 the org too, as the quick action's Apex signs),
// a double click being one job, the job's diff,
// confirming a candidate of a "needs review" match, and each CRM's signed read of an account's history
// in the words its card or quick action shows.
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HISTORY_PAGE_EVENTS,
  type HistoryChange,
} from '../../connectors/hubspot/app/src/app/cards/buyer-intel-api.ts';
import {
  changeLines,
  runDescription,
} from '../../connectors/hubspot/app/src/app/cards/buyer-intel-format.ts';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import {
  salesforceRequestSignature,
  salesforceRequestSignatureV2,
  salesforceRequestSignatureV3,
} from '../../connectors/salesforce/request-signature.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import type { EnrichResult } from '../../src/enrich/types.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { closeService, createTestService } from '../helpers/service.ts';

/** The quick action's helpers (plain JavaScript, loaded as the metadata test does). */
const LWC_FORMAT = join(
  import.meta.dirname,
  '../../connectors/salesforce/force-app/main/default/lwc/buyerIntelRefresh/buyerIntelFormat.js',
);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-api-${randomUUID().slice(0, 8)}`;
const API_KEY = `key-${randomBytes(16).toString('hex')}`;
const SF_SECRET = randomBytes(32).toString('hex');

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;
let base: string;

beforeAll(async () => {
  [bi, hs, sf] = await Promise.all([startSandbox(), startHubSpotSandbox(), startSalesforceSandbox({})]);
  const settings = sandboxSettings(
    { buyerIntel: bi, hubspot: hs, salesforce: sf },
    { redisUrl: REDIS_URL, prefix },
    { worker: { concurrency: 4, writeBatchWaitMs: 20 } },
  );
  // The quick action's signing secret is part of Salesforce's own configuration section.
  const salesforce = { ...(settings.crms.salesforce as object), requestSecrets: [SF_SECRET] };
  service = await createTestService({
    ...settings,
    crms: { ...settings.crms, salesforce },
    api: { apiKeys: [API_KEY] },
  });
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  await service.connector('salesforce', sf.orgId).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  // The embedded database migrates on first use: here, not inside the first test's refresh.
  await service.store.open();
  base = (await service.startHttp(0, '127.0.0.1')).url;
  service.startWorker();
});

afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close(), sf?.close()]);
});

const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const withKey = { authorization: `Bearer ${API_KEY}` };

async function jobResult(jobId: string): Promise<EnrichResult> {
  const body = await eventually(
    async () => {
      const { body } = await call('GET', `/api/jobs/${jobId}`, undefined, withKey);
      return body.state === 'completed' || body.state === 'failed' ? body : undefined;
    },
    `job ${jobId} finishing`,
    { timeoutMs: 20_000, intervalMs: 50 },
  );
  if (body.state === 'failed') throw new Error(`job failed: ${String(body.failedReason)}`);
  if (!body.result) throw new Error(`completed without a result: ${JSON.stringify(body)}`);
  // A card shows the bar full once the job is done (the worker no longer writes progress itself).
  expect(body.progress).toBe(100);
  return body.result as EnrichResult;
}

const company = (properties: Record<string, string>) =>
  hs.store.createCompany(properties, { source: 'CRM_UI' }).id;

describe('POST /api/refresh with an API key', () => {
  it('queues one job for a double click and reports the diff when it is done', async () => {
    const id = company({ name: 'City of Austin', state: 'TX' });
    const first = await call('POST', '/api/refresh', { crm: 'hubspot', accountId: id }, withKey);
    const second = await call('POST', '/api/refresh', { crm: 'hubspot', accountId: id }, withKey);
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body.jobId).toBe(first.body.jobId);
    expect(second.body.deduplicated).toBe(true);

    const result = await jobResult(String(first.body.jobId));
    expect(result.status).toBe('enriched');
    const population = result.fields.find((f) => f.attribute === 'Population');
    expect(population).toMatchObject({ old: null, decision: 'write' });
    expect(population?.new).toMatch(/^\d+$/);
    expect(result.written[P.status]).toBe('enriched');

    const card = await call('GET', `/api/accounts/hubspot/${id}`, undefined, withKey);
    expect(card.status).toBe(200);
    expect(card.body).toMatchObject({ status: 'enriched', buyerName: expect.stringContaining('Austin') });
    expect(card.body.lastEnrichedAt).toEqual(expect.any(String));
  });

  it('takes a HubSpot id with a leading zero as the same company (issue 43: it answered 404)', async () => {
    const id = company({ name: 'City of Round Rock', state: 'TX' });
    const queued = await call('POST', '/api/refresh', { crm: 'hubspot', accountId: `0${id}` }, withKey);
    expect(queued.status).toBe(202);
    const result = await jobResult(String(queued.body.jobId));
    expect(result.account.accountId).toBe(id);
  });

  it('refuses a missing or wrong key, and bad input, with JSON naming the problem', async () => {
    const none = await call('POST', '/api/refresh', { crm: 'hubspot', accountId: '1' });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('unauthorized');
    const wrong = await call(
      'POST',
      '/api/refresh',
      { crm: 'hubspot', accountId: '1' },
      { authorization: 'Bearer nope' },
    );
    expect(wrong.status).toBe(401);
    const missing = await call('POST', '/api/refresh', { crm: 'hubspot' }, withKey);
    expect(missing.status).toBe(400);
    expect(String(missing.body.message)).toContain('accountId');
    const crm = await call('POST', '/api/refresh', { crm: 'pipedrive', accountId: '1' }, withKey);
    expect(crm.status).toBe(400);
    expect(String(crm.body.message)).toContain('crm');
    const json = await call('POST', '/api/refresh', '{', withKey);
    expect(json).toMatchObject({ status: 400, body: { error: 'malformed_json' } });
    const job = await call('GET', '/api/jobs/nope', undefined, withKey);
    expect(job.status).toBe(404);
  });
});

describe('HubSpot card calls (hubspot.fetch, v3 signature)', () => {
  const signed = (method: string, path: string, body: string, secret = hs.clientSecret) => {
    const timestamp = String(Date.now());
    return {
      'x-hubspot-signature-v3': hubspotSignatureV3(secret, method, `${base}${path}`, body, timestamp),
      'x-hubspot-request-timestamp': timestamp,
    };
  };

  it('accepts a valid signature for its own portal and refuses a bad one or another CRM', async () => {
    const id = company({ name: 'Travis County', state: 'TX' });
    const path = `/api/refresh?portalId=${hs.portalId}&userId=7`;
    const body = JSON.stringify({ crm: 'hubspot', accountId: id });
    const ok = await call('POST', path, body, signed('POST', path, body));
    expect(ok.status).toBe(202);
    const bad = await call('POST', path, body, signed('POST', path, body, 'not-the-secret'));
    expect(bad.status).toBe(401);
    expect(String(bad.body.message)).toContain('signature');
    const tampered = JSON.stringify({ crm: 'hubspot', accountId: `${id}9` });
    expect((await call('POST', path, tampered, signed('POST', path, body))).status).toBe(401);
    const other = JSON.stringify({ crm: 'salesforce', accountId: '001000000000001' });
    expect((await call('POST', path, other, signed('POST', path, other))).status).toBe(403);
  });

  it('records the HubSpot user behind a reject (userEmail) or a confirm (userId when the email is not sane)', async () => {
    const portal = String(hs.portalId);
    const decisionsOf = async (accountId: string) =>
      (await service.store.open()).decisions.forAccount({ crm: 'hubspot', tenant: portal, accountId });

    const rejectedId = company({ name: 'City of Austin', state: 'TX' });
    const jane = `portalId=${portal}&userId=7&userEmail=jane%40example.com&appId=99`;
    const reject = `/api/accounts/hubspot/${rejectedId}/reject?${jane}`;
    const reason = JSON.stringify({ tenant: portal, reason: 'a private company' });
    const rejected = await call('POST', reject, reason, signed('POST', reject, reason));
    expect(rejected.status).toBe(202);
    await jobResult(String(rejected.body.jobId));
    const [rejection] = await decisionsOf(rejectedId);
    expect(rejection).toMatchObject({
      action: 'reject',
      actor: { kind: 'crm-user', name: `hubspot ${portal} jane@example.com` },
    });
    // What the card reads back: the pinned no_match with who rejected it, and the name and state a
    // re-search starts from.
    const read = `/api/accounts/hubspot/${rejectedId}?tenant=${portal}&${jane}`;
    const card = await call('GET', read, undefined, signed('GET', read, ''));
    expect(card.body).toMatchObject({
      name: 'City of Austin',
      state: 'TX',
      status: 'no_match',
      pinned: true,
      explanation: `Rejected by hubspot ${portal} jane@example.com: a private company`,
    });

    // In Illinois: the confirm below teaches this portal that "Springfield" (IL) is the buyer picked
    // (learned decisions), and the confirm test further down needs a state-less "Springfield" still
    // ambiguous.
    const reviewedId = company({ name: 'Springfield', state: 'IL' });
    const queued = await call('POST', '/api/refresh', { crm: 'hubspot', accountId: reviewedId }, withKey);
    expect((await jobResult(String(queued.body.jobId))).status).toBe('needs_review');
    const listed = await call('GET', `/api/accounts/hubspot/${reviewedId}`, undefined, withKey);
    expect(listed.body.pinned).toBe(false);
    const [pick] = listed.body.candidates as { buyerId: string }[];
    const odd = `portalId=${portal}&userId=8&userEmail=${encodeURIComponent('<b>@example.com')}&appId=99`;
    const confirm = `/api/accounts/hubspot/${reviewedId}/confirm?${odd}`;
    const chosen = JSON.stringify({ tenant: portal, buyerId: pick?.buyerId });
    const confirmed = await call('POST', confirm, chosen, signed('POST', confirm, chosen));
    expect(confirmed.status).toBe(202);
    await jobResult(String(confirmed.body.jobId));
    const [confirmation] = await decisionsOf(reviewedId);
    expect(confirmation).toMatchObject({
      action: 'confirm',
      buyerId: pick?.buyerId,
      actor: { kind: 'crm-user', name: `hubspot ${portal} user 8` },
    });
  });

  it("reads its own company's history, whose run names the HubSpot user as the card shows it", async () => {
    const portal = String(hs.portalId);
    // A buyer no other test here refreshes: another account of the same buyer would join its
    // duplicates group, and that group's marks are changes of their own.
    const id = company({ name: 'Austin Community College', state: 'TX' });
    const jane = `portalId=${portal}&userId=7&userEmail=jane%40example.com&appId=99`;
    const refresh = `/api/refresh?${jane}`;
    const body = JSON.stringify({ crm: 'hubspot', tenant: portal, accountId: id });
    const queued = await call('POST', refresh, body, signed('POST', refresh, body));
    expect((await jobResult(String(queued.body.jobId))).status).toBe('enriched');

    // The URL the card asks for, with what hubspot.fetch appends.
    const path = `/api/accounts/hubspot/${id}/history?tenant=${portal}&limit=${HISTORY_PAGE_EVENTS}&${jane}`;
    const read = await call('GET', path, undefined, signed('GET', path, ''));
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ crm: 'hubspot', tenant: portal, accountId: id, next: null });
    const [change, ...older] = read.body.changes as HistoryChange[];
    expect(older).toEqual([]);
    expect(change?.run).toMatchObject({ kind: 'refresh', actor: `hubspot ${portal} jane@example.com` });
    if (!change) throw new Error('no change');
    expect(runDescription(change)).toBe('refresh by jane@example.com');
    // A first enrichment writes dozens of fields: the match first, then the rest counted.
    const lines = changeLines(change);
    expect(lines).toContain('Status: — → Enriched');
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^Buyer: — → .*Austin/)]));
    expect(lines).toHaveLength(6);
    expect(lines.at(-1)).toMatch(/^…and \d+ more$/);

    const forged = await call('GET', path, undefined, signed('GET', path, '', 'not-the-secret'));
    expect(forged.status).toBe(401);
  });

  it('may not read runs: they span every CRM and tenant', async () => {
    for (const path of [`/api/runs?portalId=${hs.portalId}`, `/api/runs/1?portalId=${hs.portalId}`]) {
      const res = await call('GET', path, undefined, signed('GET', path, ''));
      expect([path, res.status, res.body.error]).toEqual([path, 403, 'forbidden']);
    }
  });
});

describe('Salesforce quick action calls (HMAC, single-use nonce)', () => {
  const signed = (body: string, options: { nonce?: string; timestamp?: number; secret?: string } = {}) => {
    const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
    const nonce = options.nonce ?? randomBytes(16).toString('hex');
    return {
      'x-buyerintel-timestamp': timestamp,
      'x-buyerintel-nonce': nonce,
      'x-buyerintel-signature': salesforceRequestSignature(
        options.secret ?? SF_SECRET,
        timestamp,
        nonce,
        body,
      ),
    };
  };

  it('accepts a signed refresh once; a replay, a stale timestamp or a tampered body is refused', async () => {
    const id = sf.store.create('Account', {
      Name: 'Austin Independent School District',
      BillingState: 'TX',
    }).id;
    const body = JSON.stringify({ crm: 'salesforce', tenant: sf.orgId, accountId: id });
    const headers = signed(body);
    const ok = await call('POST', '/api/refresh', body, headers);
    expect(ok.status).toBe(202);
    const replay = await call('POST', '/api/refresh', body, headers);
    expect(replay.status).toBe(401);
    expect(String(replay.body.message)).toContain('nonce');
    const stale = await call(
      'POST',
      '/api/refresh',
      body,
      signed(body, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
    );
    expect(stale.status).toBe(401);
    const tampered = body.replace(id, `${id.slice(0, -1)}X`);
    expect((await call('POST', '/api/refresh', tampered, headers)).status).toBe(401);
    expect((await call('POST', '/api/refresh', body, signed(body, { secret: 'x'.repeat(40) }))).status).toBe(
      401,
    );
    expect((await jobResult(String(ok.body.jobId))).status).toBe('enriched');
  });

  it('a v2-signed reject is recorded as decided by the Salesforce user; another user in the header is refused', async () => {
    const user = 'jane.doe@acme.example';
    const signedAs = (body: string, who: string) => {
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = randomBytes(16).toString('hex');
      return {
        'x-buyerintel-timestamp': timestamp,
        'x-buyerintel-nonce': nonce,
        'x-buyerintel-user': who,
        'x-buyerintel-signature': salesforceRequestSignatureV2(SF_SECRET, timestamp, nonce, who, body),
      };
    };
    const id = sf.store.create('Account', { Name: 'Acme Paving Inc', BillingState: 'TX' }).id;
    const path = `/api/accounts/salesforce/${id}/reject`;
    const body = JSON.stringify({ tenant: sf.orgId, reason: 'a paving contractor' });

    const tampered = await call('POST', path, body, {
      ...signedAs(body, user),
      'x-buyerintel-user': 'mallory@acme.example',
    });
    expect(tampered.status).toBe(401);
    expect(String(tampered.body.message)).toContain('signature does not match');
    // A v1 signature does not cover the user: naming one beside it is refused, not believed.
    const v1 = await call('POST', path, body, { ...signed(body), 'x-buyerintel-user': user });
    expect(v1.status).toBe(401);
    expect(String(v1.body.message)).toContain('X-BuyerIntel-User needs a v2 signature');
    const field = (name: string) => sf.store.find('Account', id).values.get(name) ?? null;
    expect(field('BuyerIntel_Status__c')).toBeNull();

    const ok = await call('POST', path, body, signedAs(body, user));
    expect(ok.status).toBe(202);
    expect((await jobResult(String(ok.body.jobId))).status).toBe('no_match');
    expect(field('BuyerIntel_Status__c')).toBe('no_match');
    expect(field('BuyerIntel_MatchReason__c')).toBe(`Rejected by salesforce ${user}: a paving contractor`);
    const [tenant] = service.tenantsOf('salesforce');
    const { decisions } = await service.store.open();
    const recorded = await decisions.forAccount({ crm: 'salesforce', tenant: tenant ?? '', accountId: id });
    expect(recorded).toEqual([
      expect.objectContaining({
        action: 'reject',
        params: { reason: 'a paving contractor' },
        actor: { kind: 'crm-user', name: `salesforce ${user}` },
      }),
    ]);
  });

  it("a reject signed as the Apex signs it (v3: its 18-character org id and its user) is recorded as that org's user", async () => {
    const user = 'jane.doe@acme.example';
    const id = sf.store.create('Account', { Name: 'Acme Paving Inc', BillingState: 'TX' }).id;
    const path = `/api/accounts/salesforce/${id}/reject`;
    // The controller's body: the tenant is UserInfo.getOrganizationId(), the same 18 characters as the header.
    expect(sf.orgId).toHaveLength(18);
    const body = JSON.stringify({ tenant: sf.orgId, reason: 'a paving contractor' });

    // Signed with this org's secret while naming another: checked with the other org's secrets (it
    // has none here), so it is no valid signature.
    const otherOrg = await call('POST', path, body, salesforceV3(body, user, OTHER_ORG));
    expect([otherOrg.status, otherOrg.body.error]).toEqual([401, 'unauthorized']);
    const fifteen = await call('POST', path, body, salesforceV3(body, user, sf.orgId.slice(0, 15)));
    expect(fifteen.status).toBe(401);
    const swapped = await call('POST', path, body, {
      ...salesforceV3(body, user, sf.orgId),
      'x-buyerintel-org': OTHER_ORG,
    });
    expect(swapped.status).toBe(401);

    const ok = await call('POST', path, body, salesforceV3(body, user, sf.orgId));
    expect(ok.status).toBe(202);
    expect((await jobResult(String(ok.body.jobId))).status).toBe('no_match');
    const [tenant] = service.tenantsOf('salesforce');
    expect(tenant).toBe(sf.orgId.slice(0, 15));
    const reason = sf.store.find('Account', id).values.get('BuyerIntel_MatchReason__c');
    expect(reason).toBe(`Rejected by salesforce ${tenant} ${user}: a paving contractor`);
    const { decisions } = await service.store.open();
    const recorded = await decisions.forAccount({ crm: 'salesforce', tenant: tenant ?? '', accountId: id });
    expect(recorded).toEqual([
      expect.objectContaining({
        action: 'reject',
        actor: { kind: 'crm-user', name: `salesforce ${tenant} ${user}` },
      }),
    ]);
  });
});

/** An org the service does not serve (a well-formed 18-character id). */
const OTHER_ORG = '00DAm000000BcDeMAK';

/** The headers the quick action's Apex puts on a call: v3, covering its org and running user. */
function salesforceV3(body: string, user: string, org: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString('hex');
  return {
    'x-buyerintel-timestamp': timestamp,
    'x-buyerintel-nonce': nonce,
    'x-buyerintel-org': org,
    'x-buyerintel-user': user,
    'x-buyerintel-signature': salesforceRequestSignatureV3(SF_SECRET, timestamp, nonce, org, user, body),
  };
}

describe("Salesforce quick action: the account's history (v3-signed GET, as the Apex sends it)", () => {
  const user = 'jane.doe@acme.example';
  const signedAs = (body: string, who = user) => salesforceV3(body, who, sf.orgId);

  it('reads what the quick action asks for, once per nonce, and no HubSpot company', async () => {
    const lwc = (await import(LWC_FORMAT)) as {
      runDescription(change: unknown): string;
      changeLines(change: unknown): string[];
      historyPageOf(raw: unknown): { changes: HistoryChange[]; next: string | null } | null;
    };
    const id = sf.store.create('Account', { Name: 'Acme Paving Inc', BillingState: 'TX' }).id;
    const reject = `/api/accounts/salesforce/${id}/reject`;
    const reason = JSON.stringify({ tenant: sf.orgId, reason: 'a paving contractor' });
    const rejected = await call('POST', reject, reason, signedAs(reason));
    expect((await jobResult(String(rejected.body.jobId))).status).toBe('no_match');

    // The Apex controller's URL: the org as tenant, its page size, and a GET signs an empty body.
    const path = `/api/accounts/salesforce/${id}/history?tenant=${sf.orgId}&limit=${HISTORY_PAGE_EVENTS}`;
    const headers = signedAs('');
    const read = await call('GET', path, undefined, headers);
    expect(read.status).toBe(200);
    const page = lwc.historyPageOf(read.body);
    expect(page?.next).toBeNull();
    const [change] = page?.changes ?? [];
    // A v3 caller is recorded in its org; the quick action still names only the user.
    const org15 = sf.orgId.slice(0, 15);
    expect(change?.run).toMatchObject({ kind: 'review', actor: `salesforce ${org15} ${user}` });
    expect(lwc.runDescription(change)).toBe(`rejected by ${user}`);
    expect(lwc.changeLines(change)).toContain('Status: — → No match');

    const replay = await call('GET', path, undefined, headers);
    expect(replay.status).toBe(401);
    expect(String(replay.body.message)).toContain('nonce');
    const hubspot = `/api/accounts/hubspot/${id}/history`;
    const other = await call('GET', hubspot, undefined, signedAs(''));
    expect([other.status, other.body.error]).toEqual([403, 'forbidden']);
  });
});

describe('needs review → confirm a candidate', () => {
  it('lists the candidates, pins the confirmed buyer and enriches with it', async () => {
    const id = company({ name: 'Springfield' });
    const queued = await call('POST', '/api/refresh', { crm: 'hubspot', accountId: id }, withKey);
    expect((await jobResult(String(queued.body.jobId))).status).toBe('needs_review');

    const card = await call('GET', `/api/accounts/hubspot/${id}`, undefined, withKey);
    expect(card.body.status).toBe('needs_review');
    const candidates = card.body.candidates as { buyerId: string; name: string }[];
    expect(candidates.length).toBeGreaterThan(1);
    const chosen = candidates[1] ?? candidates[0];

    const refused = await call(
      'POST',
      `/api/accounts/hubspot/${id}/confirm`,
      { buyerId: randomUUID() },
      withKey,
    );
    expect(refused).toMatchObject({ status: 400, body: { error: 'not_a_candidate' } });

    const confirmed = await call(
      'POST',
      `/api/accounts/hubspot/${id}/confirm`,
      { buyerId: chosen?.buyerId },
      withKey,
    );
    expect(confirmed.status).toBe(202);
    const result = await jobResult(String(confirmed.body.jobId));
    expect(result.status).toBe('enriched');
    expect(result.match).toMatchObject({ buyerId: chosen?.buyerId, source: 'pinned' });
    const after = await call('GET', `/api/accounts/hubspot/${id}`, undefined, withKey);
    expect(after.body).toMatchObject({ status: 'enriched', buyerId: chosen?.buyerId, candidates: [] });
  });
});
