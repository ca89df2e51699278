// The quick action's undo of an account's last change, over real HTTP with real Redis, the Salesforce
// emulator and the worker, every call v3-signed as the Apex controller signs it (its body built the way
// it builds it): the dry run's plan in the words the panel shows, the undo queued, its run followed at
// GET /api/runs/:id to its end — the one run a Salesforce-signed caller may read — and the Account's
// fields back as they were. Runs of anything else stay an API key's to read.
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFieldName } from '../../connectors/salesforce/fields.ts';
import { salesforceRequestSignatureV3 } from '../../connectors/salesforce/request-signature.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { eventually } from '../helpers/poll.ts';
import { closeService, completedJob, createTestService } from '../helpers/service.ts';

/** The quick action's undo words (plain JavaScript, loaded as the metadata test loads its helpers). */
const LWC_UNDO = join(
  import.meta.dirname,
  '../../connectors/salesforce/force-app/main/default/lwc/buyerIntelRefresh/buyerIntelUndo.js',
);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-sf-undo-${randomUUID().slice(0, 8)}`;
const API_KEY = `key-${randomBytes(16).toString('hex')}`;
const SF_SECRET = randomBytes(32).toString('hex');
const USER = 'jane.doe@acme.example';
const POPULATION = DEFAULT_MAPPING.fields.find((f) => f.attribute === 'Population')?.property ?? '';

let bi: RunningBuyerIntelSandbox;
let sf: RunningSalesforceSandbox;
let service: Service;
let base: string;

beforeAll(async () => {
  [bi, sf] = await Promise.all([startSandbox(), startSalesforceSandbox({})]);
  const settings = sandboxSettings(
    { buyerIntel: bi, salesforce: sf },
    { redisUrl: REDIS_URL, prefix },
    { worker: { concurrency: 2, writeBatchWaitMs: 20 } },
  );
  const salesforce = { ...(settings.crms.salesforce as object), requestSecrets: [SF_SECRET] };
  service = await createTestService({ ...settings, crms: { salesforce }, api: { apiKeys: [API_KEY] } });
  await service.connector('salesforce', sf.orgId).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  base = (await service.startHttp(0, '127.0.0.1')).url;
  service.startWorker();
}, 60_000);

afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), sf?.close()]);
});

/** A call as the Apex controller sends it: v3 over timestamp, nonce, org, user and the raw body. */
async function apex(method: 'GET' | 'POST', path: string, body?: object, org = sf.orgId) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(16).toString('hex');
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      'x-buyerintel-timestamp': timestamp,
      'x-buyerintel-nonce': nonce,
      'x-buyerintel-org': org,
      'x-buyerintel-user': USER,
      'x-buyerintel-signature': salesforceRequestSignatureV3(SF_SECRET, timestamp, nonce, org, USER, raw),
    },
    ...(body === undefined ? {} : { body: raw }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const withKey = async (path: string) => {
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/** The controller's undoLastChange body: the account of this org, and whether only to plan. */
const undoBody = (accountId: string, dryRun: boolean) => ({
  account: { crm: 'salesforce', tenant: sf.orgId, accountId },
  dryRun,
});

const field = (id: string, name: string) => {
  const v = sf.store.find('Account', id).values.get(defaultFieldName(name));
  return v === null || v === undefined ? null : String(v);
};

describe('Salesforce quick action: undo the last change (v3-signed, as the Apex sends it)', () => {
  it('plans, undoes and follows the run to its end; the account is as before the refresh', async () => {
    const lwc = (await import(LWC_UNDO)) as {
      undoPlanView(plan: unknown): {
        title: string;
        summary: string;
        lines: { text: string }[];
        hasWork: boolean;
      };
      isUndoFinished(run: unknown): boolean;
      undoOutcome(run: unknown): string;
    };
    const id = sf.store.create('Account', { Name: 'City of Austin', BillingState: 'TX' }).id;
    const queued = await apex('POST', '/api/refresh', { crm: 'salesforce', tenant: sf.orgId, accountId: id });
    expect(queued.status).toBe(202);
    await completedJob(service, String(queued.body.jobId));
    const population = field(id, POPULATION);
    expect(population).toMatch(/^\d+$/);
    expect(field(id, P.status)).toBe('enriched');

    const plan = await apex('POST', '/api/undo', undoBody(id, true));
    expect([plan.status, plan.body.dryRun]).toEqual([200, true]);
    const view = lwc.undoPlanView(plan.body);
    expect(view.title).toMatch(/^Undo the last change \(refresh run \d+\)\?$/);
    expect(view.hasWork).toBe(true);
    const totals = plan.body.totals as { restore: number; notes: number };
    expect(totals.restore).toBeGreaterThan(5);
    const notes = `${totals.notes} note${totals.notes === 1 ? '' : 's'}`;
    expect(view.summary).toBe(`The undo puts back ${totals.restore} values, removes ${notes}.`);
    // The match first, as the last changes show it; the buyer's data after it, cut short.
    expect(view.lines.map((l) => l.text).slice(0, 2)).toEqual([
      `Buyer: ${field(id, P.buyerName)} → —`,
      'Status: Enriched → —',
    ]);
    expect(view.lines.at(-1)?.text).toMatch(/^…and \d+ more$/);
    expect(field(id, POPULATION)).toBe(population); // a dry run writes nothing

    const undo = await apex('POST', '/api/undo', undoBody(id, false));
    expect(undo.status).toBe(202);
    const runId = String(undo.body.runId);
    const run = await eventually(
      async () => {
        const read = await apex('GET', `/api/runs/${runId}?limit=1`);
        expect(read.status).toBe(200);
        return lwc.isUndoFinished(read.body) ? read.body : undefined;
      },
      `undo run ${runId} finishing`,
      { timeoutMs: 20_000 },
    );
    expect(run).toMatchObject({ kind: 'undo', actor: expect.stringContaining(USER) });
    expect(lwc.undoOutcome(run)).toBe(`${totals.restore} values put back, ${totals.notes} notes removed.`);
    expect(field(id, POPULATION)).toBeNull();
    expect(field(id, P.status)).toBeNull();

    // Undone already: the plan has nothing left to do, and the panel says so before anyone confirms.
    const again = await apex('POST', '/api/undo', undoBody(id, true));
    expect(lwc.undoPlanView(again.body).hasWork).toBe(false);
  });

  it('lets a Salesforce caller read no other run, nor one of another org, nor undo one', async () => {
    const id = sf.store.create('Account', { Name: 'City of Dallas', BillingState: 'TX' }).id;
    const queued = await apex('POST', '/api/refresh', { crm: 'salesforce', tenant: sf.orgId, accountId: id });
    await completedJob(service, String(queued.body.jobId));
    const history = await apex('GET', `/api/accounts/salesforce/${id}/history?tenant=${sf.orgId}`);
    const refreshRun = String((history.body.changes as { runId: string }[])[0]?.runId);
    expect(refreshRun).toMatch(/^\d+$/);

    const other = await apex('GET', `/api/runs/${refreshRun}`);
    expect([other.status, other.body.error]).toEqual([403, 'forbidden']);
    expect(String(other.body.message)).toContain('undo of its own account');
    // One that does not exist reads the same: a caller learns nothing of the runs it may not read.
    const none = await apex('GET', '/api/runs/987654321');
    expect([none.status, none.body.error]).toEqual([403, 'forbidden']);
    expect((await withKey('/api/runs/987654321')).status).toBe(404);
    expect((await withKey(`/api/runs/${refreshRun}`)).status).toBe(200);
    const runUndo = await apex('POST', '/api/undo', { run: refreshRun, dryRun: true });
    expect([runUndo.status, runUndo.body.error]).toEqual([403, 'forbidden']);
    // This org's secret naming another org: checked with that org's secrets (none), so refused.
    const otherOrg = await apex('POST', '/api/undo', undoBody(id, true), '00DAm000000BcDeMAK');
    expect([otherOrg.status, otherOrg.body.error]).toEqual([401, 'unauthorized']);
    expect(field(id, P.status)).toBe('enriched');
  });
});
