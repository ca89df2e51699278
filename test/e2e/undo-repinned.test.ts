// Issue 45, item 4, end to end as the issue tells it: a refresh (run 1) enriches a HubSpot company to
// City of Austin; a person's re-search re-pins it to the Austin Independent School District, whose
// values the two buyers share (Travis County, the status…) are not written again; then run 1 is
// undone. The company must stay whole: the district's data complete with its name, id, confidence and
// status `enriched` — as the API reports it — never a status cleared under a buyer's name. Real HTTP
// (our API, the HubSpot and provider emulators), real Redis, the worker, the test's own database.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/provenance.ts';
import { eventually } from '../helpers/poll.ts';
import { completedJob } from '../helpers/service.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

const API_KEY = `key-${randomBytes(16).toString('hex')}`;
/** The mapped fields whose value the write policy replaces when the buyer changes (not fill-empty). */
const REPLACED = DEFAULT_MAPPING.fields.filter((f) => f.policy !== 'fill-empty').map((f) => f.property);

let running: TestService;

beforeAll(async () => {
  running = await startTestService({
    name: 'e2e-undo-repinned',
    without: ['salesforce'],
    fields: true,
    startWorker: true,
    worker: { concurrency: 2, writeBatchWaitMs: 10 },
    settings: (s) => ({ ...s, api: { apiKeys: [API_KEY] } }),
  });
}, 60_000);

afterAll(async () => {
  await running?.close();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${running.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Waits for a queued enrich job; answers the run it belongs to. */
async function finished(jobId: string): Promise<string> {
  await completedJob(running.service, jobId);
  const job = await running.service.queue.getJob(jobId);
  return String(job?.data.runId);
}

async function refresh(accountId: string): Promise<string> {
  const queued = await call('POST', '/api/refresh', { crm: 'hubspot', accountId });
  expect(queued.status).toBe(202);
  return finished(String(queued.body.jobId));
}

async function undoRun(run: string) {
  const queued = await call('POST', '/api/undo', { run });
  expect(queued.status).toBe(202);
  const id = String(queued.body.runId);
  return eventually(
    async () => {
      const r = await call('GET', `/api/runs/${id}`);
      return r.body.finishedAt ? r.body : undefined;
    },
    `undo run ${id} finishing`,
    { timeoutMs: 20_000, intervalMs: 50 },
  );
}

const company = (name: string) =>
  running.hs.store.createCompany({ name, state: 'TX', city: 'Austin' }, { source: 'CRM_UI' }).id;
const read = (id: string, field: string) => running.hs.store.getCompany(id)?.values.get(field) || null;
const ours = (id: string) => Object.fromEntries(REPLACED.map((f) => [f, read(id, f)]));

describe('undo of an older run on a company a re-search re-pinned to another buyer', () => {
  it('leaves the new buyer whole: its data, name, id, confidence and status, as the API reports', async () => {
    // What the district's data looks like on a company enriched straight to it: the oracle.
    const control = company('Austin Independent School District');
    await refresh(control);
    const district = read(control, P.buyerId);
    expect(read(control, P.status)).toBe('enriched');

    const id = company('City of Austin');
    const run1 = await refresh(id);
    expect(read(id, P.status)).toBe('enriched');
    const city = read(id, P.buyerId);
    expect(city).not.toBe(district);
    const cityValues = ours(id);

    const research = await call('POST', `/api/accounts/hubspot/${id}/research`, {
      name: 'Austin Independent School District',
    });
    expect(research.status).toBe(202);
    await finished(String(research.body.jobId));
    expect(read(id, P.buyerId)).toBe(district);
    // The premise: some values both buyers share were left as run 1 wrote them (the county at least).
    const shared = REPLACED.filter((f) => cityValues[f] !== null && cityValues[f] === read(control, f));
    expect(shared).toContain('buyer_intel_county');

    await undoRun(run1);

    // The finding: the API said `never` while the company still named the district.
    const api = await call('GET', `/api/accounts/hubspot/${id}`);
    expect(api.body).toMatchObject({ status: 'enriched', buyerId: district });
    expect(api.body.confidence).toEqual(expect.any(Number));
    expect(read(id, P.buyerName)).toBe(read(control, P.buyerName));
    expect(ours(id)).toEqual(ours(control));
    // The review queue agrees with the CRM: the account is listed matched, to the district.
    const queue = await call('GET', '/api/review?cohort=matched_by_name&q=City%20of%20Austin');
    const rows = (queue.body.rows ?? queue.body.accounts) as { accountId: string; buyerId: string }[];
    expect(rows.find((r) => r.accountId === id)).toMatchObject({ buyerId: district });
  });
});
