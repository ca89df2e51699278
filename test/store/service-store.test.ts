// End to end: a running service (HTTP, worker, real Redis, HubSpot emulator) records every outcome, run
// and decision in its store, and the API answers from it.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { enrichJobOptions, jobIdOf } from '../../queues/enrich-queue.ts';
import { keyFingerprint } from '../../src/api/authenticate.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import type { Repositories } from '../../src/store/store.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, completedJob, createTestService, refreshAndWait } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-store-${randomUUID().slice(0, 8)}`;
const API_KEY = `key-${randomBytes(16).toString('hex')}`;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let base: string;
let store: Repositories;
let portal: string;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox()]);
  portal = String(hs.portalId);
  service = await createTestService({
    ...sandboxSettings(
      { buyerIntel: bi, hubspot: hs },
      { redisUrl: REDIS_URL, prefix },
      { worker: { writeBatchWaitMs: 20 } },
    ),
    api: { apiKeys: [API_KEY] },
  });
  await service.connector('hubspot', portal).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  base = (await service.startHttp(0, '127.0.0.1')).url;
  service.startWorker();
  store = await service.store.open();
}, 60_000);
afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

const api = (path: string, body?: unknown) =>
  fetch(`${base}/api${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe('the service’s system of record', () => {
  it('records a refreshed account’s outcome with its run, job and who asked', async () => {
    const id = hs.store.createCompany({ name: 'City of Austin', state: 'Texas' }, { source: 'CRM_UI' }).id;
    const jobId = await refreshAndWait(service, base, API_KEY, id);

    const outcome = await store.outcomes.get({ crm: 'hubspot', tenant: portal, accountId: id });
    expect(outcome).toMatchObject({
      accountName: 'City of Austin',
      state: 'TX',
      status: 'enriched',
      cohort: 'matched_by_name',
      matchedBy: 'name',
      trigger: 'refresh',
      jobId,
      error: null,
    });
    expect(outcome?.buyerId).toBeTruthy();
    expect(outcome?.buyerType).toBeTruthy();
    const run = await store.runs.get(outcome?.runId ?? '');
    expect(run).toMatchObject({ kind: 'refresh', actor: keyFingerprint(API_KEY) });

    // The API shows the match the store holds.
    const shown = (await (await api(`/accounts/hubspot/${id}`)).json()) as {
      buyerId: string;
      status: string;
    };
    expect(shown).toMatchObject({ buyerId: outcome?.buyerId, status: 'enriched' });
  });

  it('records a confirm as a decision and a run; the account then counts as matched by id', async () => {
    const id = hs.store.createCompany({ name: 'Springfield' }, { source: 'CRM_UI' }).id;
    await refreshAndWait(service, base, API_KEY, id);
    const key = { crm: 'hubspot', tenant: portal, accountId: id };
    const review = await store.outcomes.get(key);
    expect(review).toMatchObject({ status: 'needs_review', cohort: 'needs_review', buyerId: null });
    const pick = review?.candidates[0]?.buyerId ?? '';
    expect(pick).toBeTruthy();

    const res = await api(`/accounts/hubspot/${id}/confirm`, { buyerId: pick });
    expect(res.status).toBe(202);
    await completedJob(service, ((await res.json()) as { jobId: string }).jobId);

    const [decision] = await store.decisions.forAccount(key);
    expect(decision).toMatchObject({
      action: 'confirm',
      buyerId: pick,
      actor: { kind: 'api-key', name: keyFingerprint(API_KEY) },
    });
    const after = await store.outcomes.get(key);
    expect(after).toMatchObject({
      status: 'enriched',
      cohort: 'matched_by_id',
      buyerId: pick,
      runId: decision?.runId,
    });
    expect(await store.runs.get(decision?.runId ?? '')).toMatchObject({ kind: 'confirm' });

    const counts = await store.outcomes.counts({ crm: 'hubspot', tenant: portal });
    expect(counts).toMatchObject({ matched_by_name: 1, matched_by_id: 1, needs_review: 0 });
  });

  it('records a job that failed for good as an error, with the reason', async () => {
    // The refresh API answers 404 for an account the CRM does not have; a job queued for one (a company
    // deleted after its webhook) fails for good in the worker.
    const accountId = '999999999';
    const jobId = jobIdOf('hubspot', portal, accountId, 'refresh', randomUUID());
    await service.queue.add(
      'enrich',
      { crm: 'hubspot', tenant: portal, accountId, trigger: 'refresh' },
      enrichJobOptions('refresh', 3, jobId),
    );
    const key = { crm: 'hubspot', tenant: portal, accountId };
    await expect.poll(async () => (await store.outcomes.get(key))?.cohort, { timeout: 20_000 }).toBe('error');
    expect((await store.outcomes.get(key))?.error).toBeTruthy();
  });

  it('records a webhook delivery as one run (a re-delivery is the same run) that its account’s outcome names', async () => {
    const id = hs.store.createCompany({ name: 'Travis County', state: 'Texas' }, { source: 'CRM_UI' }).id;
    const event = {
      eventId: 90_001,
      subscriptionId: 1,
      portalId: Number(portal),
      appId: Number(hs.appId),
      occurredAt: Date.now(),
      subscriptionType: 'company.creation',
      attemptNumber: 0,
      objectId: Number(id),
      changeFlag: 'CREATED',
      changeSource: 'CRM_UI',
    };
    const deliver = async (events: unknown[]) => {
      const body = JSON.stringify(events);
      const timestamp = String(Date.now());
      // HubSpot's v3 signature, computed here independently of the code under test.
      const signature = createHmac('sha256', hs.clientSecret)
        .update(`POST${base}/webhooks/hubspot${body}${timestamp}`)
        .digest('base64');
      const res = await fetch(`${base}/webhooks/hubspot`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hubspot-signature-v3': signature,
          'x-hubspot-request-timestamp': timestamp,
        },
        body,
      });
      return { status: res.status, body: await res.json() };
    };
    expect(await deliver([event])).toEqual({ status: 200, body: { received: 1, enqueued: 1, ignored: 0 } });
    await completedJob(service, `hubspot.${portal}.${id}.created`);
    // HubSpot's retry of the same delivery (attemptNumber raised), and the very same bytes again.
    expect((await deliver([{ ...event, attemptNumber: 1 }])).status).toBe(200);
    expect((await deliver([event])).status).toBe(200);

    const { runs } = await store.runs.list({ kind: 'webhook' });
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(run).toMatchObject({ label: 'HubSpot webhook: 1 event', counts: { received: 1, queued: 1 } });
    const outcome = await store.outcomes.get({ crm: 'hubspot', tenant: portal, accountId: id });
    expect(outcome).toMatchObject({ trigger: 'webhook', runId: run?.id, status: 'enriched' });

    const job = await service.queue.getJob(`hubspot.${portal}.${id}.created`);
    const result = job?.returnvalue as { written: Record<string, unknown> } | undefined;
    const written = Object.keys(result?.written ?? {});
    expect(written.length).toBeGreaterThan(0);
    const notes = hs.store.notesOf(id).length;
    const shown = await api(`/runs/${run?.id}`);
    expect(shown.status).toBe(200);
    expect(await shown.json()).toEqual({
      id: run?.id,
      kind: 'webhook',
      label: 'HubSpot webhook: 1 event',
      actor: null,
      startedAt: run?.startedAt.toISOString(),
      finishedAt: null,
      counts: { received: 1, queued: 1 },
      accounts: 1,
      outcomes: { enriched: 1, needs_review: 0, no_match: 0, error: 0 },
      // What it changed: the account's fields and notes, once (the re-deliveries changed nothing).
      writes: {
        accounts: 1,
        fieldsWritten: written.length,
        fieldsFailed: 0,
        fieldsSkipped: 0,
        notesCreated: notes,
        notesRemoved: 0,
      },
      history: {
        changes: [
          expect.objectContaining({
            accountId: id,
            trigger: 'webhook',
            run: { kind: 'webhook', label: 'HubSpot webhook: 1 event', actor: null },
            fields: expect.arrayContaining([
              expect.objectContaining({ field: 'buyer_intel_status', new: 'enriched' }),
            ]),
          }),
        ],
        next: null,
      },
    });
  });

  it('lists runs newest first by kind, a page at a time; refuses bad input and unknown runs', async () => {
    const all = (await (await api('/runs')).json()) as { runs: { id: string; kind: string }[] };
    // Every run the tests above started: refreshes, a confirm, a webhook delivery.
    expect(new Set(all.runs.map((r) => r.kind))).toEqual(new Set(['refresh', 'confirm', 'webhook']));
    const ids = all.runs.map((r) => Number(r.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const refreshes = (await store.runs.list({ kind: 'refresh' })).runs.map((r) => r.id);
    expect(refreshes.length).toBeGreaterThanOrEqual(2);
    const first = (await (await api('/runs?kind=refresh&limit=1')).json()) as {
      runs: { id: string; kind: string }[];
      next: string;
    };
    expect(first.runs.map((r) => r.id)).toEqual(refreshes.slice(0, 1));
    expect(first.next).toBe(refreshes[0]);
    const second = (await (await api(`/runs?kind=refresh&limit=1&after=${first.next}`)).json()) as {
      runs: { id: string }[];
    };
    expect(second.runs.map((r) => r.id)).toEqual(refreshes.slice(1, 2));

    for (const [query, message] of [
      ['kind=nightly', /^query kind: /],
      ['limit=0', /^query limit: /],
      ['limit=ten', /^query limit: /],
      ['after=abc', /^query after: must be a run id/],
      ['kind=refresh&kind=webhook', /^query kind: give it once/],
      ['sort=id', /^query \(root\): Unrecognized key: "sort"/],
    ] as const) {
      const res = await api(`/runs?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect((await res.json()) as { message: string }).toMatchObject({
        error: 'invalid_request',
        message: expect.stringMatching(message),
      });
    }
    for (const id of ['abc', '999999999', '99999999999999999999999'])
      expect([id, (await api(`/runs/${id}`)).status]).toEqual([id, 404]);
  });
});
