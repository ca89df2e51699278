// An org whose admin left the integration user without Edit on one of our fields: Salesforce refuses
// every write of it (INVALID_FIELD_FOR_INSERT_UPDATE). The account's job fails for good at once — one
// update call, no retries — and the failure is recorded with the field's name and what to grant.
// Through the Outbound Message, the real queue and worker, jsforce and the Salesforce sandbox.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFieldName } from '../../connectors/salesforce/fields.ts';
import { id15 } from '../../connectors/salesforce/ids.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { SANDBOX_OUTBOUND_TOKEN } from '../../emulators/salesforce/index.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-e2e-sf-fls-${randomUUID().slice(0, 8)}`;
// The match reason is written on every enrichment, whatever the buyer.
const LOCKED = defaultFieldName(P.matchReason);

let bi: RunningBuyerIntelSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;

beforeAll(async () => {
  bi = await startSandbox();
  sf = await startSalesforceSandbox({ readOnlyFields: [`Account.${LOCKED}`] });
  service = await createTestService(
    sandboxSettings(
      { buyerIntel: bi, salesforce: sf },
      { redisUrl: REDIS_URL, prefix },
      { worker: { concurrency: 2, writeBatchWaitMs: 20, attempts: 5 } },
    ),
  );
  await service.connector('salesforce', sf.orgId).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  const http = await service.startHttp(0, '127.0.0.1');
  service.startWorker();
  sf.outbound.configure({
    endpointUrl: `${http.url}/webhooks/salesforce?token=${SANDBOX_OUTBOUND_TOKEN}`,
    batchWindowMs: 10,
    retryDelaysMs: [50, 100, 200],
  });
});

afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), sf?.close()]);
});

describe('a field the integration user cannot edit', () => {
  it('fails the account for good on its first write, naming the field and the access to grant', async () => {
    const id = sf.store.create('Account', {
      Name: 'City of Austin',
      BillingState: 'TX',
      Website: 'https://www.austintexas.gov',
    }).id;
    const job = await eventually(
      async () => {
        const jobs = await service.queue.getJobs(['failed', 'completed']);
        return jobs.find((j) => j.data.accountId === id);
      },
      `account ${id}'s job over`,
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    expect(job.returnvalue).toBeFalsy();
    expect(job.attemptsMade).toBe(1);
    expect(job.failedReason).toContain(LOCKED);
    expect(job.failedReason).toContain('INVALID_FIELD_FOR_INSERT_UPDATE');
    expect(job.failedReason).toContain('Edit access');

    // Recorded as the account's outcome, as every permanent write failure is.
    const { outcomes } = await service.store.open();
    const outcome = await eventually(
      async () => {
        const o = await outcomes.get({ crm: 'salesforce', tenant: id15(sf.orgId), accountId: id });
        return o?.status === 'error' ? o : undefined;
      },
      `account ${id}'s outcome recorded`,
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    expect(outcome.error).toContain(LOCKED);
    expect(outcome.error).toContain('Set Field-Level Security');
    // Nothing of the refused record was written: the field, nor the others of the same update.
    expect(sf.store.find('Account', id).values.get(LOCKED)).toBeNull();
  });
});
