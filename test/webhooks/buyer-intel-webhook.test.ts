// The provider's row webhooks end to end, over real HTTP and real Redis: the sandbox's webhook column
// posts to POST /webhooks/buyer-intel, the router queues a BullMQ job, the signal worker reads the row
// from the sandbox API and notes it on every enriched account of its buyer (an in-memory CRM).
import { randomUUID } from 'node:crypto';
import type { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { addSandboxRow, type Delivery, touchSandboxRow } from '../../emulators/buyer-intel/webhook-sender.ts';
import { jobIdOf } from '../../queues/enrich-queue.ts';
import type { SignalJobData } from '../../queues/signal-queue.ts';
import { createSignalQueue, enqueueInto, startSignalWorker } from '../../queues/signal-queue.ts';
import { createHttpApp } from '../../src/service/http-app.ts';
import { type Listening, listen } from '../../src/service/listen.ts';
import { processRowEvent, type RowEventResult } from '../../src/signals/realtime.ts';
import { signStandardWebhook } from '../../src/signals/standard-webhooks.ts';
import { buyerIntelWebhookRouter } from '../../src/webhooks/buyer-intel.ts';
import { Ledgers } from '../../src/write/ledgers.ts';
import { signalNoteKey, signalToNote } from '../../src/write/signal-notes.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { FakeCrm } from '../signals/fake-crm.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-bi-webhook-${randomUUID()}`;
let redis: Redis;
let workerRedis: Redis;
let queue: Queue<SignalJobData>;
let worker: Worker<SignalJobData, RowEventResult>;
let sandbox: RunningBuyerIntelSandbox;
let server: Listening;
let crm: FakeCrm;
let ledgers: Ledgers;

const hubspot = { crm: 'hubspot' as const, tenant: '4242', accountId: '9001' };
const salesforce = { crm: 'salesforce' as const, tenant: '00D000000000001', accountId: '001000000000001AAA' };
let buyerId: string;
let lonelyBuyerId: string;
let bridgeId: string;

beforeAll(async () => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  workerRedis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  sandbox = await startSandbox({ webhooks: { retryScheduleMs: [50, 100] } });
  const { client } = clientFor(sandbox);
  crm = new FakeCrm();
  ledgers = new Ledgers(redis, `${prefix}:ledger`);
  queue = createSignalQueue(redis, { prefix });
  worker = startSignalWorker({
    connection: workerRedis,
    queue,
    prefix,
    process: (data) =>
      processRowEvent(
        { buyerIntel: client, connectorFor: (kind, tenant) => crm.connector(kind, tenant), ledgers },
        data,
      ),
  });
  const router = buyerIntelWebhookRouter({
    verify: { secrets: [sandbox.webhooks.secret], publicKeys: [sandbox.webhooks.publicKey] },
    redis,
    prefix,
    enqueue: enqueueInto(queue),
    attempts: 2,
    maxBodyBytes: 16 * 1024,
  });
  server = await listen(createHttpApp({ webhooks: { 'buyer-intel': router } }));
  sandbox.webhooks.configure({ url: `${server.url}/webhooks/buyer-intel` });

  const bridge = sandbox.dataset.bridges.find((b) => b.sharedWithAll) ?? sandbox.dataset.bridges[0];
  bridgeId = bridge?.bridgeId ?? '';
  buyerId = sandbox.dataset.buyers[0]?.id ?? '';
  lonelyBuyerId = sandbox.dataset.buyers[1]?.id ?? '';
  await ledgers.recordMatch(hubspot, buyerId);
  await ledgers.recordMatch(salesforce, buyerId);
});

beforeEach(() => {
  sandbox.webhooks.configure({ schemes: ['v1', 'v1a'] });
});

afterAll(async () => {
  await sandbox.close();
  await server.close();
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  workerRedis.disconnect();
});

/** Waits for the job of a delivery and returns what the worker did. */
async function processed(webhookId: string): Promise<RowEventResult> {
  const jobId = jobIdOf('bi-webhook', webhookId);
  const state = await eventually(
    async () => {
      const state = await queue.getJobState(jobId);
      return state === 'completed' || state === 'failed' ? state : undefined;
    },
    `job ${jobId} finishing`,
    { timeoutMs: 5_000 },
  );
  // Read the job after its state: a copy read before may predate its return value.
  const job = await queue.getJob(jobId);
  if (state === 'failed') throw new Error(`job failed: ${job?.failedReason}`);
  return job?.returnvalue as RowEventResult;
}

async function newRow(forBuyer: string, columns: Record<string, unknown> = {}) {
  const row = addSandboxRow(sandbox.dataset, {
    bridgeId,
    buyerId: forBuyer,
    name: `RFP ${randomUUID()}`,
    columns,
  });
  const sent = sandbox.webhooks.emitRowEvent(row, 'bridge.row.created');
  if (!sent) throw new Error('nothing sent');
  const delivery = await sent.done;
  return { row, delivery };
}

async function post(body: string, headers: Record<string, string>) {
  const res = await fetch(`${server.url}/webhooks/buyer-intel`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const signed = (body: string, id = `msg_${randomUUID()}`, ts = Math.floor(Date.now() / 1000)) =>
  signStandardWebhook({ secret: sandbox.webhooks.secret }, id, ts, body);

const rowEvent = (rowId: string, type = 'bridge.row.created') =>
  JSON.stringify({
    type,
    timestamp: new Date().toISOString(),
    data: { rowId, bridgeId, name: 'x', status: 'Processed' },
  });

const notesWithKey = (accountId: string, key: string) =>
  crm.notesOf(accountId).filter((n) => n.dedupeKey === key);

describe('valid deliveries', () => {
  it.each([['v1' as const], ['v1a' as const]])(
    '%s-signed: one note per enriched account of the buyer',
    async (scheme) => {
      sandbox.webhooks.configure({ schemes: [scheme] });
      const { row, delivery } = await newRow(buyerId, {
        [sandbox.dataset.bridgesById.get(bridgeId)?.columns[0]?.name ?? 'x']: 'Body cameras',
      });
      expect(delivery.state).toBe('delivered');
      expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
      const result = await processed(delivery.webhookId);
      expect(result).toMatchObject({ status: 'noted', buyerId, rowId: row.rowId });
      const key = signalNoteKey(buyerId, row.rowId);
      for (const account of [hubspot, salesforce]) {
        const notes = notesWithKey(account.accountId, key);
        expect(notes).toHaveLength(1);
        expect(notes[0]?.title).toBe(row.name);
        expect(notes[0]?.body).toContain('Body cameras');
        expect(await ledgers.knownNotes(account, [key])).toEqual(new Set([key]));
      }
    },
  );
});

describe('rejected deliveries', () => {
  it('a tampered body is 401 and queues nothing', async () => {
    const row = addSandboxRow(sandbox.dataset, { bridgeId, buyerId, name: 'tampered' });
    const id = `msg_${randomUUID()}`;
    const headers = signed(rowEvent(row.rowId), id);
    const res = await post(rowEvent(row.rowId).replace('"x"', '"y"'), headers);
    expect(res).toEqual({ status: 401, body: { error: 'signature_mismatch', message: expect.any(String) } });
    expect(await queue.getJob(jobIdOf('bi-webhook', id))).toBeUndefined();
    expect(
      crm.notesOf(hubspot.accountId).some((n) => n.dedupeKey === signalNoteKey(buyerId, row.rowId)),
    ).toBe(false);
  });

  it('a stale timestamp is 401', async () => {
    const body = rowEvent(randomUUID());
    const res = await post(body, signed(body, undefined, Math.floor(Date.now() / 1000) - 6 * 60));
    expect(res).toMatchObject({ status: 401, body: { error: 'timestamp_too_old' } });
  });

  it('an unsigned delivery is 401; a signed bad payload is 400; a huge body is 413', async () => {
    expect(await post(rowEvent(randomUUID()), {})).toMatchObject({
      status: 401,
      body: { error: 'missing_headers' },
    });
    const notJson = '{"type":';
    expect(await post(notJson, signed(notJson))).toMatchObject({
      status: 400,
      body: { error: 'invalid_json' },
    });
    const noRow = JSON.stringify({ type: 'bridge.row.updated', data: { bridgeId } });
    expect(await post(noRow, signed(noRow))).toMatchObject({
      status: 400,
      body: { error: 'invalid_payload', message: expect.stringContaining('rowId') },
    });
    const huge = JSON.stringify({ type: 'bridge.row.created', pad: 'x'.repeat(20_000) });
    expect(await post(huge, signed(huge))).toMatchObject({
      status: 413,
      body: { error: 'payload_too_large' },
    });
  });

  it('an event type we do not act on is acknowledged and ignored', async () => {
    const body = JSON.stringify({ type: 'bridge.deleted', data: { bridgeId } });
    const id = `msg_${randomUUID()}`;
    expect(await post(body, signed(body, id))).toMatchObject({ status: 200, body: { status: 'ignored' } });
    expect(await queue.getJob(jobIdOf('bi-webhook', id))).toBeUndefined();
  });
});

describe('deduplication', () => {
  it('a re-delivered webhook-id writes no second note, even when the dedupe key is gone', async () => {
    const { row, delivery } = await newRow(buyerId);
    await processed(delivery.webhookId);
    const key = signalNoteKey(buyerId, row.rowId);
    const again = signed(delivery.body, delivery.webhookId);
    expect(await post(delivery.body, again)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
    // A crash between queuing and setting the dedupe key: the job id still makes it one job.
    await redis.del(`${prefix}:bi-webhook:${delivery.webhookId}`);
    expect(await post(delivery.body, signed(delivery.body, delivery.webhookId))).toMatchObject({
      status: 200,
      body: { status: 'accepted' },
    });
    await processed(delivery.webhookId);
    expect(notesWithKey(hubspot.accountId, key)).toHaveLength(1);
    expect(notesWithKey(salesforce.accountId, key)).toHaveLength(1);
  });

  it('a row the enrichment already noted (same key, on the CRM only) gets no second note', async () => {
    sandbox.webhooks.configure({ url: null });
    const row = addSandboxRow(sandbox.dataset, { bridgeId, buyerId, name: 'noted by enrichment' });
    sandbox.webhooks.configure({ url: `${server.url}/webhooks/buyer-intel` });
    // What the pipeline writes for this row (listRecentBuyerSignals → signalToNote), straight to the CRM.
    const { client } = clientFor(sandbox);
    const signals = await client.listRecentBuyerSignals({ buyerId, triggerIds: [bridgeId], pageSize: 100 });
    const signal = signals.result.find((s) => s.row.rowId === row.rowId);
    expect(signal).toBeDefined();
    if (!signal) return;
    await crm
      .connector('hubspot', hubspot.tenant)
      .createNotes([signalToNote(hubspot.accountId, buyerId, signal)]);

    touchSandboxRow(sandbox.dataset, row.rowId);
    const delivery = (await sandbox.webhooks.emitRowEvent(row, 'bridge.row.updated')?.done) as Delivery;
    const result = await processed(delivery.webhookId);
    const key = signalNoteKey(buyerId, row.rowId);
    expect(result.accounts.map((a) => [a.accountId, a.outcome]).sort()).toEqual(
      [
        [hubspot.accountId, 'already_present'],
        [salesforce.accountId, 'created'],
      ].sort(),
    );
    expect(notesWithKey(hubspot.accountId, key)).toHaveLength(1);
    expect(notesWithKey(salesforce.accountId, key)).toHaveLength(1);
    // The CRM's note is now in our ledger too: the next event takes the fast path.
    expect(await ledgers.knownNotes(hubspot, [key])).toEqual(new Set([key]));
  });
});

it('a row of a buyer with no enriched account is acknowledged and writes nothing', async () => {
  const before = crm.createCalls;
  const { delivery } = await newRow(lonelyBuyerId);
  expect(delivery.state).toBe('delivered');
  expect(await processed(delivery.webhookId)).toMatchObject({
    status: 'not_enriched',
    buyerId: lonelyBuyerId,
  });
  expect(crm.createCalls).toBe(before);
});
