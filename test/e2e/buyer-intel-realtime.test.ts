// The provider's real-time row webhooks through the whole service: the Buyer Intelligence sandbox signs
// and sends bridge.row.created for a buyer we matched → our receiver queues it → the signal worker
// writes one note on the matched HubSpot company; the same row again writes nothing.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { addSandboxRow } from '../../emulators/buyer-intel/webhook-sender.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { jobIdOf } from '../../queues/enrich-queue.ts';
import { SIGNAL_QUEUE } from '../../queues/signal-queue.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-e2e-realtime-${randomUUID().slice(0, 8)}`;
let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let signalQueue: Queue;
let redis: Redis;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox()]);
  const base = sandboxSettings(
    { buyerIntel: bi, hubspot: hs },
    { redisUrl: REDIS_URL, prefix },
    { signals: { maxNotesPerRun: 0 }, worker: { writeBatchWaitMs: 20 } },
  );
  service = await createTestService({
    ...base,
    buyerIntel: { ...base.buyerIntel, webhooks: { secrets: [], publicKeys: [bi.webhooks.publicKey] } },
  });
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  const http = await service.startHttp(0, '127.0.0.1');
  service.startWorker();
  redis = new Redis(REDIS_URL);
  signalQueue = new Queue(SIGNAL_QUEUE, { connection: redis, prefix });
  bi.webhooks.configure({ url: `${http.url}/webhooks/buyer-intel`, schemes: ['v1a'] });
});
afterAll(async () => {
  await signalQueue?.close();
  redis?.disconnect();
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

describe('real-time signals from the provider', () => {
  it('becomes one note on the matched company, and only one', async () => {
    const austin = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    const result = await service.enrich({ crm: 'hubspot', tenant: String(hs.portalId), accountId: austin });
    expect(result.status).toBe('enriched');
    expect(hs.store.notesOf(austin)).toHaveLength(0);

    const row = addSandboxRow(bi.dataset, {
      bridgeId: (bi.dataset.bridges.find((b) => b.sharedWithAll) ?? bi.dataset.bridges[0])?.bridgeId ?? '',
      buyerId: result.match.buyerId,
      name: `RFP: Fleet telematics ${randomUUID().slice(0, 6)}`,
    });
    const first = await bi.webhooks.emitRowEvent(row, 'bridge.row.created')?.done;
    expect(first?.state).toBe('delivered');
    await eventually(() => hs.store.notesOf(austin).length === 1, 'the note', { timeoutMs: 10_000 });

    const again = await bi.webhooks.emitRowEvent(row, 'bridge.row.updated')?.done;
    expect(again?.state).toBe('delivered');
    // The second delivery's job has run (and found the note already there).
    const jobId = jobIdOf('bi-webhook', again?.webhookId ?? '');
    await eventually(async () => (await signalQueue.getJobState(jobId)) === 'completed', 'the second job', {
      timeoutMs: 10_000,
    });
    expect(hs.store.notesOf(austin)).toHaveLength(1);
    // On the record once, as a signal's note, with the CRM's id.
    const { writes } = await service.store.open();
    const history = await writes.forAccount({
      crm: 'hubspot',
      tenant: String(hs.portalId),
      accountId: austin,
    });
    const notes = history.events.filter((e) => e.type === 'note');
    expect(notes).toEqual([
      expect.objectContaining({
        noteId: hs.store.notesOf(austin)[0]?.id,
        trigger: 'signal',
        buyerId: result.match.buyerId,
        title: row.name,
      }),
    ]);
  });
});
