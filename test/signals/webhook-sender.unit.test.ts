// The sandbox's emulation of the provider's webhooks: what it sends verifies with our verifier, it
// retries non-2xx answers on its (shortened) schedule, and its control plane and row status changes
// send the events their trigger mode covers.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type Listening, listen } from '../../src/service/listen.ts';
import { rowEventDataSchema, webhookEnvelopeSchema } from '../../src/signals/events.ts';
import { createStandardWebhookVerifier, type VerifyResult } from '../../src/signals/standard-webhooks.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';

interface Received {
  headers: Record<string, string | undefined>;
  body: string;
  verified: VerifyResult;
}

let sandbox: RunningBuyerIntelSandbox;
let receiver: Listening;
let received: Received[] = [];
/** Statuses to answer, in order; 200 once used up. */
let answers: number[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ webhooks: { retryScheduleMs: [20, 40, 60] } });
  const verify = createStandardWebhookVerifier({
    secrets: [sandbox.webhooks.secret],
    publicKeys: [sandbox.webhooks.publicKey],
  });
  const verifyEach = (scheme: 'v1' | 'v1a') =>
    scheme === 'v1'
      ? createStandardWebhookVerifier({ secrets: [sandbox.webhooks.secret] })
      : createStandardWebhookVerifier({ publicKeys: [sandbox.webhooks.publicKey] });
  const app = express();
  app.post('/hook', express.raw({ type: () => true }), (req, res) => {
    const body = (req.body as Buffer).toString('utf8');
    const headers = {
      id: req.get('webhook-id'),
      timestamp: req.get('webhook-timestamp'),
      signature: req.get('webhook-signature'),
    };
    const verified = verify(headers, body);
    // Both schemes are present and each verifies on its own.
    if (headers.signature?.includes('v1,') && headers.signature.includes('v1a,')) {
      expect(verifyEach('v1')(headers, body).ok).toBe(true);
      expect(verifyEach('v1a')(headers, body).ok).toBe(true);
    }
    received.push({ headers: { id: headers.id, signature: headers.signature }, body, verified });
    res.status(answers.shift() ?? 200).end();
  });
  receiver = await listen(app);
});
beforeEach(() => {
  received = [];
  answers = [];
  sandbox.webhooks.configure({
    url: `${receiver.url}/hook`,
    mode: 'createdAndUpdated',
    schemes: ['v1', 'v1a'],
  });
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

const control = (path: string, method: string, body?: unknown) =>
  fetch(`${sandbox.url}/__sandbox${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const bridgeId = () => sandbox.dataset.bridges[0]?.bridgeId ?? '';
const buyerId = () => sandbox.dataset.buyers[0]?.id ?? '';

describe('deliveries', () => {
  it('are signed with both schemes over the payload the catalogue shows', async () => {
    const res = await control('/rows', 'POST', { bridgeId: bridgeId(), buyerId: buyerId(), name: 'New RFP' });
    expect(res.status).toBe(201);
    const { row, webhookId } = (await res.json()) as { row: { rowId: string }; webhookId: string };
    await sandbox.webhooks.idle();
    expect(received).toHaveLength(1);
    const [got] = received;
    expect(got?.verified).toMatchObject({ ok: true, id: webhookId });
    expect(got?.headers.signature).toMatch(/^v1,\S+ v1a,\S+$/);
    const envelope = webhookEnvelopeSchema.parse(JSON.parse(got?.body ?? ''));
    expect(envelope.type).toBe('bridge.row.created');
    expect(rowEventDataSchema.parse(envelope.data)).toMatchObject({
      rowId: row.rowId,
      bridgeId: bridgeId(),
      name: 'New RFP',
      status: 'Processed',
    });
  });

  it('retry a non-2xx answer on the schedule with the same id, re-signed each time', async () => {
    answers = [500, 503];
    const row = sandbox.dataset.rows[0];
    if (!row) throw new Error('no row');
    const sent = sandbox.webhooks.emitRowEvent(row, 'bridge.row.updated');
    const delivery = await sent?.done;
    expect(delivery?.attempts.map((a) => a.status)).toEqual([500, 503, 200]);
    expect(delivery?.state).toBe('delivered');
    expect(new Set(received.map((r) => r.headers.id))).toEqual(new Set([delivery?.webhookId]));
    expect(received.every((r) => r.verified.ok)).toBe(true);
  });

  it('give up after the last retry', async () => {
    answers = [500, 500, 500, 500];
    const row = sandbox.dataset.rows[1];
    if (!row) throw new Error('no row');
    const delivery = await sandbox.webhooks.emitRowEvent(row, 'bridge.row.updated')?.done;
    expect(delivery?.attempts).toHaveLength(4);
    expect(delivery?.state).toBe('failed');
  });

  it('retry when the receiver is unreachable', async () => {
    sandbox.webhooks.configure({ url: 'http://127.0.0.1:9/hook' });
    const row = sandbox.dataset.rows[2];
    if (!row) throw new Error('no row');
    const delivery = await sandbox.webhooks.emitRowEvent(row, 'bridge.row.created')?.done;
    expect(delivery?.attempts.map((a) => a.status)).toEqual([null, null, null, null]);
  });
});

describe('triggers', () => {
  it('a row status change through the API sends bridge.row.updated, unless the mode is row addition only', async () => {
    const { client } = clientFor(sandbox);
    const row = sandbox.dataset.rows.find((r) => r.bridgeId === bridgeId());
    if (!row) throw new Error('no row');
    await client.setBridgeRowStatus(row.bridgeId, row.rowId, 'Saved');
    await sandbox.webhooks.idle();
    expect(received.map((r) => JSON.parse(r.body).type)).toEqual(['bridge.row.updated']);

    received = [];
    expect((await control('/webhooks', 'PUT', { mode: 'created' })).status).toBe(200);
    await client.setBridgeRowStatus(row.bridgeId, row.rowId, 'New');
    const touched = await control(`/rows/${row.rowId}/touch`, 'POST', { columns: {} });
    expect(((await touched.json()) as { webhookId: unknown }).webhookId).toBeNull();
    await sandbox.webhooks.idle();
    expect(received).toEqual([]);
  });

  it('the control plane shows the keys and deliveries, and refuses bad input with a reason', async () => {
    const state = (await (await control('/webhooks', 'GET')).json()) as Record<string, unknown>;
    expect(state).toMatchObject({
      url: `${receiver.url}/hook`,
      secret: sandbox.webhooks.secret,
      publicKey: expect.stringMatching(/^whpk_/),
    });
    expect(await (await control('/webhooks', 'PUT', { url: 'not a url' })).json()).toMatchObject({
      error: 'invalid_request',
    });
    const noBridge = await control('/rows', 'POST', { bridgeId: randomUUID(), buyerId: null });
    expect(noBridge.status).toBe(400);
    expect((await control(`/rows/${randomUUID()}/touch`, 'POST', {})).status).toBe(404);
  });
});
