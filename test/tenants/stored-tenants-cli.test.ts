// Every tenant first class (issue 44): a second HubSpot portal and a second Salesforce org added with
// `tenants add` get our fields at once and their first webhook job writes fields and notes; a portal
// stored without them (an install whose field creation failed) gets them before its first write;
// `setup`, `enrich` and `backfill` act on a stored tenant with --tenant (setup on every one with
// --all-tenants); `digest --now` digests the stored tenants' accounts too, `--tenant` only one's;
// `doctor` reads with each stored tenant's token and names a scope one lacks.
// The real binary and an in-process service share the Redis prefix and the database; one HubSpot base
// URL serves every portal, as api.hubapi.com does (a proxy hands each call to the portal whose token
// it carries), and each Salesforce org is its own emulator at its own instance URL.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { to18 } from '../../emulators/salesforce/ids.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { loadEnv } from '../../src/config/env.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import { createService, type Service } from '../../src/service/runtime.ts';
import { settingsFromEnv } from '../../src/service/settings.ts';
import { TokenCipher } from '../../src/tenants/cipher.ts';
import { TenantStore } from '../../src/tenants/store.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { cliDatabase, runCli, runCliInProcess } from '../helpers/cli.ts';
import { eventually } from '../helpers/poll.ts';
import { closeService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-stored-cli-${randomUUID().slice(0, 8)}`;
const KEY = randomBytes(32).toString('base64');
const OUTBOUND_TOKEN = `stored-org-outbound-${randomBytes(12).toString('hex')}`;
const ORG_B = to18('00DB00000002Xyz');

let bi: RunningBuyerIntelSandbox;
let hsA: RunningHubSpotSandbox;
let hsB: RunningHubSpotSandbox;
let hsC: RunningHubSpotSandbox;
let sfA: RunningSalesforceSandbox;
let sfB: RunningSalesforceSandbox;
let proxy: Server;
let env: Record<string, string>;
let service: Service;
let base: string;
const portalOf = new Map<string, RunningHubSpotSandbox>();
/** The account of the portal stored without its fields (3003). */
let storedOnly = '';

beforeAll(async () => {
  // Each portal's own private-app token: the proxy routes by it.
  const portal = (portalId: number) =>
    startHubSpotSandbox({ portalId, auth: { privateAppToken: `pat-na1-${portalId}-${randomUUID()}` } });
  [bi, hsA, hsB, hsC, sfA] = await Promise.all([
    startSandbox(),
    portal(1001),
    portal(2002),
    portal(3003),
    startSalesforceSandbox({}),
  ]);
  // The same connected app in both orgs: its client id and secret are the environment's.
  sfB = await startSalesforceSandbox({
    orgId: ORG_B,
    auth: { clientId: sfA.clientId, clientSecret: sfA.clientSecret },
  });
  for (const hs of [hsA, hsB, hsC]) portalOf.set(hs.accessToken, hs);
  proxy = createServer(async (req, res) => {
    const raw = await buffer(req);
    const token = /Bearer (\S+)/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const target = portalOf.get(token) ?? hsA;
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length'),
    ) as Record<string, string>;
    const answer = await fetch(`${target.url}${req.url}`, {
      method: req.method,
      headers,
      ...(raw.length ? { body: raw } : {}),
    });
    const text = await answer.text();
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(text);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const database = await cliDatabase();
  env = {
    REDIS_PREFIX: prefix,
    TOKEN_ENCRYPTION_KEY: KEY,
    BUYER_INTEL_BASE_URL: bi.url,
    BUYER_INTEL_TOKEN: bi.token,
    HUBSPOT_BASE_PATH: proxyUrl,
    HUBSPOT_ACCESS_TOKEN: hsA.accessToken,
    HUBSPOT_PORTAL_ID: '1001',
    HUBSPOT_CLIENT_SECRET: hsA.clientSecret,
    SALESFORCE_INSTANCE_URL: sfA.url,
    SALESFORCE_LOGIN_URL: sfA.url,
    SALESFORCE_ORG_ID: sfA.orgId,
    SALESFORCE_CLIENT_ID: sfA.clientId,
    SALESFORCE_CLIENT_SECRET: sfA.clientSecret,
    SALESFORCE_REFRESH_TOKEN: sfA.refreshToken,
    DIGEST_PER_ACCOUNT_CRON: '0 8 * * 1',
    DIGEST_LOOKBACK_DAYS: '60',
    BACKFILL_BATCH_WAIT_MS: '100',
    ...database.env,
  };
  // The service the webhooks reach, configured as the CLI is, on the same Redis prefix and database.
  service = createService({
    ...(await settingsFromEnv(loadEnv({ ...env, REDIS_URL }))),
    database: database.settings,
  });
  await service.store.migrate();
  base = (await service.startHttp(0, '127.0.0.1')).url;
  service.startWorker();
}, 60_000);
afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await new Promise((r) => proxy?.close(r));
  await Promise.all([bi?.close(), hsA?.close(), hsB?.close(), hsC?.close(), sfA?.close(), sfB?.close()]);
});

// In this process unless the command reads standard input (a subprocess adds nothing else here).
const cli = (args: string[], stdin = '') => (stdin ? runCli(args, env, stdin) : runCliInProcess(args, env));

async function deliver(portalId: number, objectId: string): Promise<void> {
  const payload = JSON.stringify([
    {
      eventId: Date.now(),
      subscriptionType: 'company.creation',
      portalId,
      objectId: Number(objectId),
      occurredAt: Date.now(),
      attemptNumber: 0,
    },
  ]);
  const timestamp = String(Date.now());
  const url = `${base}/webhooks/hubspot`;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-hubspot-request-timestamp': timestamp,
      'x-hubspot-signature-v3': hubspotSignatureV3(hsA.clientSecret, 'POST', url, payload, timestamp),
    },
    body: payload,
  });
  expect(await res.json()).toMatchObject({ enqueued: 1 });
}

/** The job of one tenant's account (the emulators number their records alike). */
async function finished(tenant: string, accountId: string) {
  const job = await eventually(
    async () => {
      const jobs = await service.queue.getJobs(['completed', 'failed']);
      const job = jobs.find((j) => j.data.tenant === tenant && j.data.accountId === accountId);
      const failed = job?.failedReason && job.attemptsMade >= (job.opts.attempts ?? 1);
      return job?.returnvalue || failed ? job : undefined;
    },
    `${tenant}/${accountId} enriched`,
    { timeoutMs: 30_000 },
  );
  if (!job.returnvalue) throw new Error(`job failed: ${job.failedReason}`);
  return job.returnvalue as { status: string; notes: { created: unknown[] } };
}

const sfField = (sf: RunningSalesforceSandbox, name: string) =>
  sf.store.fieldInfo('Account').some((f) => f.name === name);
const tasksOf = (sf: RunningSalesforceSandbox, id: string) =>
  sf.store.list('Task').filter((t) => !t.deleted && t.values.get('WhatId') === id);

describe('tenants added with `tenants add`', () => {
  it('get our fields at once, and their first webhook job writes fields and notes', async () => {
    const portal = await cli(
      ['tenants', 'add', 'hubspot', '--portal-id', '2002'],
      JSON.stringify({ accessToken: hsB.accessToken }),
    );
    expect(portal.code, portal.stderr).toBe(0);
    expect(portal.stdout).toMatch(/^stored hubspot 2002 \(encrypted\)\nhubspot 2002: \d+ fields created/);
    expect(hsB.store.property('companies', P.status)).toBeDefined();

    const org = await cli(
      ['tenants', 'add', 'salesforce', '--org-id', ORG_B, '--instance-url', sfB.url],
      JSON.stringify({
        refreshToken: sfB.refreshToken,
        accessToken: sfB.accessToken,
        outboundTokens: [OUTBOUND_TOKEN],
      }),
    );
    expect(org.code, org.stderr).toBe(0);
    expect(sfField(sfB, 'BuyerIntel_Status__c')).toBe(true);
    expect(sfField(sfA, 'BuyerIntel_Status__c')).toBe(false); // the environment's org is untouched

    await service.loadTenants();
    const austin = hsB.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    await deliver(2002, austin);
    const result = await finished('2002', austin);
    expect(result.status).toBe('enriched');
    expect(hsB.store.get('companies', austin)?.values.get(P.status)).toBe('enriched');
    expect(hsB.store.notesOf(austin).length).toBeGreaterThan(0);

    sfB.outbound.configure({
      endpointUrl: `${base}/webhooks/salesforce?token=${OUTBOUND_TOKEN}`,
      batchWindowMs: 10,
      retryDelaysMs: [50, 100],
    });
    const travis = sfB.store.create('Account', { Name: 'Travis County', BillingState: 'TX' }).id;
    expect((await finished(ORG_B.slice(0, 15), travis)).status).toBe('enriched');
    expect(sfB.store.find('Account', travis).values.get('BuyerIntel_Status__c')).toBe('enriched');
    expect(tasksOf(sfB, travis).length).toBeGreaterThan(0);
  }, 120_000);

  it('a portal stored without our fields gets them before its first write', async () => {
    // As an install whose field creation failed leaves it: stored, no properties.
    const redis = new Redis(REDIS_URL);
    try {
      const store = new TenantStore(
        async () => (await service.store.open()).tenants,
        redis,
        prefix,
        TokenCipher.fromBase64(KEY),
      );
      await store.put({ crm: 'hubspot', portalId: '3003', accessToken: hsC.accessToken });
    } finally {
      redis.disconnect();
    }
    await service.loadTenants();
    expect(hsC.store.property('companies', P.status)).toBeUndefined();
    const id = hsC.store.createCompany({ name: 'Travis County', state: 'TX' }, { source: 'CRM_UI' }).id;
    storedOnly = id;
    await deliver(3003, id);
    expect((await finished('3003', id)).status).toBe('enriched');
    expect(hsC.store.get('companies', id)?.values.get(P.status)).toBe('enriched');
    expect(hsC.store.notesOf(id).length).toBeGreaterThan(0);
  }, 60_000);
});

describe('--tenant on setup, enrich and backfill', () => {
  it('setup acts on a stored tenant, or on every tenant; an unknown one is one line naming it', async () => {
    const one = await cli(['setup', '--tenant', '2002']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/\nhubspot 2002: 0 fields created, \d+ already there\n$/);

    const all = await cli(['setup', '--all-tenants']);
    expect(all.code, all.stderr).toBe(0);
    for (const line of [
      'hubspot 1001: ',
      'hubspot 2002: ',
      'hubspot 3003: ',
      `salesforce ${ORG_B.slice(0, 15)}: `,
    ])
      expect(all.stdout).toContain(line);
    expect(sfField(sfA, 'BuyerIntel_Status__c')).toBe(true);

    const unknown = await cli(['setup', '--tenant', '4004']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain('no tenant 4004');
    expect(unknown.stderr).toContain('buyer-intel-sync tenants list');
  }, 120_000);

  it('enrich --tenant writes to the stored portal, and undo takes it back', async () => {
    const id = hsB.store.createCompany({ name: 'Travis County', state: 'TX' }, { source: 'CRM_UI' }).id;
    const run = await cli(['enrich', '--tenant', '2002', '--account', id]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('(hubspot 2002)');
    expect(hsB.store.get('companies', id)?.values.get(P.status)).toBe('enriched');
    // Its undo reaches the stored portal too (the history names it).
    const undo = await cli(['undo', '--crm', 'hubspot', '--account', id, '--tenant', '2002', '--yes']);
    expect(undo.code, undo.stderr).toBe(0);
    expect(hsB.store.get('companies', id)?.values.get(P.status) || null).toBeNull();
    expect((await cli(['enrich', '--tenant', '2002', '--account', id])).code).toBe(0);
  }, 90_000);

  it('backfill --tenant queues that tenant’s accounts only; --all-tenants each tenant’s', async () => {
    const fresh = hsB.store.createCompany({ name: 'Dallas County', state: 'TX' }, { source: 'CRM_UI' }).id;
    const other = hsA.store.createCompany({ name: 'Dallas County', state: 'TX' }, { source: 'CRM_UI' }).id;
    const args = '--tenant 2002 --filter buyer_intel_status= --wait --timeout 60'.split(' ');
    const run = await cli(['backfill', ...args]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Estimate for hubspot 2002: 1 accounts');
    expect(hsB.store.get('companies', fresh)?.values.get(P.status)).toBe('enriched');
    expect(hsA.store.get('companies', other)?.values.get(P.status)).toBeUndefined();

    const every = await cli(['backfill', '--all-tenants', '--dry-run']);
    expect(every.code, every.stderr).toBe(0);
    for (const t of ['hubspot 1001', 'hubspot 2002', 'hubspot 3003', `salesforce ${ORG_B.slice(0, 15)}`])
      expect(every.stdout).toContain(`Estimate for ${t}: `);
  }, 120_000);
});

describe('digest --now', () => {
  it('digests the stored tenants’ accounts too; --tenant only one’s', async () => {
    const a = hsA.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    expect((await service.enrich({ crm: 'hubspot', tenant: '1001', accountId: a })).status).toBe('enriched');
    const b = hsB.store.companies().find((c) => c.values.get('name') === 'City of Austin')?.id ?? '';
    const notesA = hsA.store.notesOf(a).length;
    const notesB = hsB.store.notesOf(b).length;
    const notesC = hsC.store.notesOf(storedOnly).length;

    const only = await cli(['digest', '--now', '--tenant', '2002']);
    expect(only.code, only.stderr + only.stdout).toBe(0);
    const narrowed = JSON.parse(only.stdout);
    expect(narrowed.counts.failed).toBe(0);
    expect(narrowed.counts.written).toBeGreaterThan(0);
    expect(hsB.store.notesOf(b).length).toBe(notesB + 1);
    expect(hsA.store.notesOf(a).length).toBe(notesA);
    expect(hsC.store.notesOf(storedOnly).length).toBe(notesC);

    const every = await cli(['digest', '--now']);
    expect(every.code, every.stderr + every.stdout).toBe(0);
    const all = JSON.parse(every.stdout);
    expect(all.counts).toMatchObject({ failed: 0 });
    expect(all.counts.alreadyWritten).toBe(narrowed.counts.written);
    expect(hsA.store.notesOf(a).length).toBe(notesA + 1);
    expect(hsB.store.notesOf(b).length).toBe(notesB + 1);
    // A stored tenant's account the narrowed run left out: reached through its stored connection.
    expect(hsC.store.notesOf(storedOnly).length).toBe(notesC + 1);
  }, 120_000);
});

describe('doctor', () => {
  it('reads with every stored tenant’s own token, and fails naming the scope one lacks', async () => {
    const ok = await cli(['doctor', '--timeout-ms', '8000']);
    expect(ok.stdout).toMatch(/^PASS {2}hubspot tenant 2002 +its token reads accounts/m);
    expect(ok.stdout).toMatch(/^PASS {2}salesforce tenant 00DB\w+ +its token reads accounts/m);
    // The portal's admin unticks the companies scope of the private app.
    hsB.auth.setPrivateAppScopes(['crm.objects.contacts.read']);
    const lacking = await cli(['doctor', '--timeout-ms', '8000']);
    expect(lacking.stdout).toMatch(
      /^FAIL {2}hubspot tenant 2002 +its token lacks crm\.objects\.companies\.read/m,
    );
    expect(lacking.stdout).toMatch(/^PASS {2}hubspot tenant 3003 /m);
    expect(lacking.code).toBe(1);
  }, 60_000);
});
