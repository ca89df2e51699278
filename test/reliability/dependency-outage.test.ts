// Fault: the service's Redis (a private redis-server) is stopped, then its PostgreSQL (a private
// cluster, `-m immediate`), while every route of the API and of the admin pages is called as its
// users call it (issue 45, item 6). Asserts: no route answers a 5xx other than 503, and every 503 names
// what is down and says when to come back (Retry-After), as the webhooks already did; a refresh, which
// needs both, is a 503 in each outage. The shared Redis and PostgreSQL are never touched.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { PG_BIN, type PrivatePostgres, privatePostgres } from '../helpers/private-servers.ts';
import { freePort, waitFor } from '../helpers/reliability-env.ts';
import { createTestService } from '../helpers/service.ts';

const API_KEY = `key-${randomBytes(16).toString('hex')}`;
const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
const prefix = `test-outage-${randomUUID().slice(0, 8)}`;

let redisServer: ChildProcess | undefined;
let redisUrl: string;
let pg: PrivatePostgres | undefined;
let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service | undefined;
let base: string;
let company: string;

async function startRedis(port: number): Promise<void> {
  redisServer = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', ''], {
    stdio: 'ignore',
  });
  const probe = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await waitFor('the private redis-server to answer', async () => {
      try {
        if (probe.status !== 'ready') await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        probe.disconnect();
        return false;
      }
    });
  } finally {
    probe.disconnect();
  }
}

async function stopRedis(): Promise<void> {
  const running = redisServer;
  if (!running || running.exitCode !== null || running.signalCode !== null) return;
  const exited = new Promise<void>((r) => running.once('exit', () => r()));
  running.kill('SIGTERM');
  await exited;
}

beforeAll(async () => {
  const port = await freePort();
  redisUrl = `redis://127.0.0.1:${port}`;
  [pg, [bi, hs]] = await Promise.all([
    PG_BIN ? privatePostgres() : undefined,
    Promise.all([startSandbox(), startHubSpotSandbox()]),
    startRedis(port),
  ]);
  service = await createTestService({
    ...sandboxSettings({ buyerIntel: bi, hubspot: hs }, { redisUrl, prefix }),
    ...(pg ? { database: { url: pg.url } } : {}),
    api: { apiKeys: [API_KEY] },
    admin: ADMIN,
  });
  if (pg) await service.store.migrate();
  await service.store.open();
  base = (await service.startHttp(0, '127.0.0.1')).url;
  company = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
}, 60_000);

afterAll(async () => {
  await service?.close().catch(() => undefined);
  await stopRedis();
  pg?.remove();
  await Promise.all([bi?.close(), hs?.close()]);
});

/** Every route of the API and of the admin pages, each with a request its checks let through. */
function routes(): { method: string; path: string; body?: unknown; headers?: Record<string, string> }[] {
  const tenant = String(hs.portalId);
  const account = `/api/accounts/hubspot/${company}`;
  const ref = { crm: 'hubspot', tenant, accountId: company };
  const buyerId = randomUUID();
  const webhook = [
    {
      eventId: Date.now(),
      subscriptionType: 'company.creation',
      portalId: hs.portalId,
      objectId: Number(company),
      occurredAt: Date.now(),
    },
  ];
  return [
    { method: 'POST', path: '/api/refresh', body: { crm: 'hubspot', accountId: company } },
    { method: 'GET', path: `/api/jobs/hubspot.${tenant}.${company}.refresh.1` },
    { method: 'GET', path: account },
    { method: 'POST', path: `${account}/confirm`, body: { buyerId } },
    { method: 'GET', path: `${account}/history` },
    { method: 'POST', path: `${account}/reject`, body: { reason: 'a private company' } },
    { method: 'POST', path: `${account}/clear`, body: {} },
    { method: 'POST', path: `${account}/research`, body: { name: 'Austin' } },
    { method: 'GET', path: '/api/runs' },
    { method: 'GET', path: '/api/runs/1' },
    { method: 'POST', path: '/api/undo', body: { run: '1', dryRun: true } },
    { method: 'POST', path: '/api/undo', body: { account: ref } },
    { method: 'GET', path: '/api/review' },
    { method: 'GET', path: '/api/review/duplicates' },
    { method: 'POST', path: '/api/review/approve', body: { accounts: [ref] } },
    { method: 'GET', path: '/admin/' },
    { method: 'GET', path: '/admin/api/recent' },
    { method: 'POST', path: '/admin/api/retry', body: ref },
    { method: 'POST', path: '/admin/api/confirm', body: { ...ref, buyerId } },
    { method: 'GET', path: '/admin/review' },
    { method: 'POST', path: '/admin/api/review/confirm', body: { ...ref, buyerId } },
    { method: 'POST', path: '/admin/api/review/reject', body: { ...ref, reason: 'not a buyer' } },
    { method: 'POST', path: '/admin/api/review/research', body: { ...ref, name: 'Austin' } },
    { method: 'POST', path: '/admin/api/review/approve', body: { accounts: [ref] } },
    { method: 'GET', path: `/admin/history/hubspot/${company}?tenant=${tenant}` },
    { method: 'GET', path: `/admin/api/review/outcome?crm=hubspot&tenant=${tenant}&accountId=${company}` },
    { method: 'GET', path: '/admin/export/review.csv' },
    { method: 'GET', path: '/admin/export/accounts.csv' },
    { method: 'GET', path: '/admin/export/history.csv?run=1' },
    { method: 'GET', path: '/admin/runs/1' },
    { method: 'GET', path: '/admin/queues/api/queues' },
    // The webhooks did answer 503 already; now with Retry-After too.
    { method: 'POST', path: '/webhooks/hubspot', body: webhook, headers: hubspotSigned(webhook) },
  ];
}

/** HubSpot's v3 signature over the body as the test sends it (JSON.stringify). */
function hubspotSigned(body: unknown): Record<string, string> {
  const timestamp = String(Date.now());
  const uri = `${base}/webhooks/hubspot`;
  return {
    'x-hubspot-request-timestamp': timestamp,
    'x-hubspot-signature-v3': hubspotSignatureV3(
      hs.clientSecret,
      'POST',
      uri,
      JSON.stringify(body),
      timestamp,
    ),
  };
}

/** Each route's answer: status, Retry-After, and the message of a JSON error body. */
async function callEvery() {
  const basic = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
  return Promise.all(
    routes().map(async ({ method, path, body, headers }) => {
      const route = `${method} ${path}`;
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(headers ?? { authorization: path.startsWith('/admin') ? basic : `Bearer ${API_KEY}` }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        // A route that waits for the dependency to come back fails here rather than at the test's timeout.
        signal: AbortSignal.timeout(15_000),
      }).catch(() => undefined);
      if (!res)
        return { route, status: 0, retryAfter: null, error: 'timeout', message: 'no answer within 15 s' };
      const text = await res.text();
      let error: unknown;
      let message: unknown;
      try {
        ({ error, message } = JSON.parse(text) as { error?: unknown; message?: unknown });
      } catch {}
      return { route, status: res.status, retryAfter: res.headers.get('retry-after'), error, message };
    }),
  );
}

function expectOnly503s(answers: Awaited<ReturnType<typeof callEvery>>, down: string) {
  expect(answers.filter((a) => a.status === 0)).toEqual([]);
  const failures = answers.filter((a) => a.status >= 500);
  expect(failures.filter((a) => a.status !== 503)).toEqual([]);
  for (const a of failures) {
    expect([a.route, typeof a.message]).toEqual([a.route, 'string']);
    // A CRM's webhook answers in its own words (HubSpot: queue_unavailable whichever is down).
    if (!a.route.includes('/webhooks/')) expect([a.route, a.error]).toEqual([a.route, down]);
    expect([a.route, String(a.message)]).toEqual([a.route, expect.stringMatching(/try again|retry later/)]);
    expect([a.route, Number(a.retryAfter)]).toEqual([a.route, expect.any(Number)]);
    expect(Number(a.retryAfter)).toBeGreaterThan(0);
  }
  for (const needsBoth of ['POST /api/refresh', 'POST /webhooks/hubspot'])
    expect([needsBoth, answers.find((a) => a.route === needsBoth)?.status]).toEqual([needsBoth, 503]);
}

describe('every API and admin route while a dependency is down', () => {
  it('answers 503 naming Redis, with Retry-After, while Redis is down', async () => {
    await stopRedis();
    expectOnly503s(await callEvery(), 'queue_unavailable');
  }, 60_000);

  it.skipIf(!PG_BIN)(
    'answers 503 naming the database, with Retry-After, while PostgreSQL is down',
    async () => {
      await startRedis(Number(new URL(redisUrl).port));
      await waitFor('the service to see Redis again', async () => (await fetch(`${base}/readyz`)).ok);
      pg?.stop();
      expectOnly503s(await callEvery(), 'store_unavailable');
    },
    60_000,
  );
});
