// The whole path on Salesforce, through real HTTP, the real jsforce and real Redis: an Account created
// in the emulator → its Outbound Message reaches our receiver → a BullMQ job → the worker resolves it
// against the Buyer Intelligence sandbox → fields and Tasks visible through Salesforce's API.
import { randomUUID } from 'node:crypto';
import jsforce from 'jsforce';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFieldName, NOTE_KEY_FIELD } from '../../connectors/salesforce/fields.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { SANDBOX_OUTBOUND_TOKEN } from '../../emulators/salesforce/index.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, createTestService, finishedJob } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-e2e-sf-${randomUUID().slice(0, 8)}`;
const POPULATION = defaultFieldName(
  DEFAULT_MAPPING.fields.find((f) => f.attribute === 'Population')?.property ?? '',
);
const sfName = (ours: string) => defaultFieldName(ours);

let bi: RunningBuyerIntelSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;
let conn: jsforce.Connection;

beforeAll(async () => {
  bi = await startSandbox();
  sf = await startSalesforceSandbox({});
  service = await createTestService(
    sandboxSettings(
      { buyerIntel: bi, salesforce: sf },
      { redisUrl: REDIS_URL, prefix },
      {
        signals: { period: 'LastTwoYears', maxNotesPerRun: 50 },
        worker: { concurrency: 8, writeBatchWaitMs: 50 },
      },
    ),
  );
  // What `setup` does: our custom fields through the Metadata API.
  await service.connector('salesforce', sf.orgId).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  const http = await service.startHttp(0, '127.0.0.1');
  service.startWorker();
  sf.outbound.configure({
    endpointUrl: `${http.url}/webhooks/salesforce?token=${SANDBOX_OUTBOUND_TOKEN}`,
    batchWindowMs: 10,
    retryDelaysMs: [50, 100, 200],
  });
  conn = new jsforce.Connection({ instanceUrl: sf.url, accessToken: sf.accessToken, version: '62.0' });
});

afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), sf?.close()]);
});

const finished = (accountId: string, timeoutMs?: number) => finishedJob(service, accountId, timeoutMs);

const createAsPerson = (values: Record<string, string>) => sf.store.create('Account', values).id;
const account = (id: string) => conn.sobject('Account').retrieve(id) as Promise<Record<string, unknown>>;
const tasksOn = async (id: string) =>
  (await conn.query(`SELECT Id, ${NOTE_KEY_FIELD} FROM Task WHERE WhatId = '${id}'`)).records;

describe('automatic enrichment on Salesforce', () => {
  let austin: string;

  it('a new Account ends up with the buyer’s fields and signal Tasks', async () => {
    austin = createAsPerson({
      Name: 'City of Austin',
      BillingState: 'TX',
      Website: 'https://www.austintexas.gov',
    });
    const result = await finished(austin);
    expect(result.status).toBe('enriched');
    const a = await account(austin);
    expect(a[sfName(P.status)]).toBe('enriched');
    expect(a[sfName(P.buyerName)]).toBe('City of Austin');
    const buyer = bi.dataset.buyers.find((b) => b.name === 'City of Austin' && b.stateCode === 'TX');
    expect(Number(a[POPULATION])).toBe(bi.dataset.attributesOf(buyer?.id ?? '')?.Population);
    const tasks = await tasksOn(austin);
    expect(tasks.length).toBeGreaterThan(0);
    expect(tasks.length).toBe(result.notes.created.length);
  });

  it('a re-delivered Outbound Message runs again but adds no Task', async () => {
    const before = (await tasksOn(austin)).length;
    const done = (await service.queue.getJobs(['completed'])).find((j) => j.data.accountId === austin);
    await done?.remove();
    const delivery = sf.outbound.deliveries.find((d) => d.recordIds.includes(austin));
    const res = await fetch(sf.outbound.settings.endpointUrl ?? '', {
      method: 'POST',
      headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '""' },
      body: delivery?.requestBody,
    });
    expect(await res.text()).toContain('<Ack>true</Ack>');
    const again = await finished(austin);
    expect(again.notes.created).toEqual([]);
    expect((await tasksOn(austin)).length).toBe(before);
  });

  it('a person’s edit survives the protective policy', async () => {
    await conn.sobject('Account').update({ Id: austin, [POPULATION]: 1000001 });
    const result = await service.enrich({ crm: 'salesforce', tenant: sf.orgId, accountId: austin });
    expect(result.fields.find((f) => defaultFieldName(f.property) === POPULATION)?.decision).toBe(
      'blocked-edited-by-person',
    );
    expect(Number((await account(austin))[POPULATION])).toBe(1000001);
  });

  it('an ambiguous name ends needs review with nothing else written', async () => {
    const id = createAsPerson({ Name: 'Springfield' });
    const result = await finished(id);
    expect(result.status).toBe('needs_review');
    const a = await account(id);
    expect(a[sfName(P.status)]).toBe('needs_review');
    expect(String(a[sfName(P.candidates)]).split('\n').length).toBeGreaterThanOrEqual(2);
    expect(a[POPULATION] ?? null).toBeNull();
    expect(await tasksOn(id)).toEqual([]);
  });

  it('an expired access token is refreshed once and the job succeeds', async () => {
    sf.auth.expire();
    const refreshesBefore = sf.stats.count('oauth2.token');
    const id = createAsPerson({ Name: 'Travis County', BillingState: 'TX' });
    const result = await finished(id);
    expect(result.status).toBe('enriched');
    expect(sf.stats.count('oauth2.token') - refreshesBefore).toBe(1);
  });
});
