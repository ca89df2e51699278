// The review queue's and the write history's CSV exports against a real PostgreSQL: the download holds
// what the store holds (formulas neutralised, a kept value in words), a bad query is a 400 naming the
// parameter, and 20,000 rows seeded directly stream — the first bytes arrive long before the last,
// and the heap does not grow with the rows (sampled after a collection while the download is read).
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import express from 'express';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAdminExportRoutes } from '../../src/admin/export-routes.ts';
import { ActionProblem } from '../../src/review/problem.ts';
import { Store } from '../../src/store/store.ts';
import type { FieldWriteEntry } from '../../src/write/journal.ts';
import { releaseTestFile } from '../helpers/release.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

const tenant = `exp${Math.random().toString(36).slice(2, 8)}`;
const BULK = 20_000;
let store: Store;
let base: string;
let server: import('node:http').Server;
let url: string | undefined;
let runId: string;
let bulkRunId: string;

const entry = (over: Partial<FieldWriteEntry>): FieldWriteEntry => ({
  crm: 'hubspot',
  tenant,
  accountId: '101',
  runId: null,
  jobId: null,
  trigger: 'backfill',
  buyerId: 'b1',
  field: 'buyer_intel_population',
  attribute: 'Population',
  kind: 'mapped',
  policy: 'ours',
  old: null,
  new: '931830',
  decision: 'write',
  result: 'ok',
  error: null,
  at: new Date('2026-03-01T12:00:00Z'),
  ...over,
});

beforeAll(async () => {
  const settings = await serviceDatabase();
  url = 'url' in settings ? settings.url : undefined;
  store = new Store(settings);
  const { outcomes, runs, writes } = await store.open();
  for (let i = 0; i < 12; i++)
    await outcomes.record({
      crm: 'hubspot',
      tenant,
      accountId: String(100 + i),
      accountName: i === 3 ? '=HYPERLINK("http://x")' : `Springfield ${i}`,
      state: 'IL',
      status: i < 9 ? 'needs_review' : 'enriched',
      matchedBy: i < 9 ? null : 'name',
      buyerId: i < 9 ? null : 'b9',
      buyerName: i < 9 ? null : 'City of Springfield',
      buyerType: null,
      confidence: 0.6,
      reason: 'Needs review: several buyers called Springfield',
      candidates: [
        { buyerId: 'b1', name: 'City of Springfield', stateCode: 'IL', type: 'City', score: 0.62 },
        {
          buyerId: 'b2',
          name: 'Springfield School District 186',
          stateCode: 'IL',
          type: 'School',
          score: 0.55,
        },
      ],
      detail: {
        source: null,
        fields: [],
        written: {},
        notes: { created: [], alreadyPresent: 0, overCap: 0 },
      },
      at: new Date(Date.UTC(2026, 0, 1, 0, i)),
    });
  const run = await runs.create({ kind: 'backfill', label: 'backfill' });
  runId = run.id;
  await writes.recordFieldWrites([
    entry({
      runId,
      old: '1400000',
      new: '1250000',
      decision: 'blocked-edited-by-person',
      result: 'not_sent',
    }),
    entry({ runId, field: 'buyer_intel_name', attribute: 'Name', new: '@SUM(A1)' }),
    entry({ runId, accountId: '102' }),
  ]);
  const router = express.Router();
  addAdminExportRoutes(router, {
    store,
    recordUrl: (crm, t, id) => `https://app.example/${crm}/${t}/${id}`,
  });
  const app = express()
    .use('/admin', router)
    .use((err: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) =>
      err instanceof ActionProblem
        ? res.status(err.status).json({ error: err.code, message: err.message })
        : next(err),
    );
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server?.close();
  await store?.close();
  await releaseTestFile();
});

const csv = async (path: string) => {
  const res = await fetch(`${base}${path}`);
  return { res, lines: (await res.text()).trim().split('\r\n') };
};

/** Reads a download chunk by chunk: when its first bytes came, when it ended, and the heap meanwhile. */
async function streamed(path: string) {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const started = performance.now();
  const res = await fetch(`${base}${path}`);
  if (!res.body) throw new Error('no body');
  const reader = res.body.getReader();
  let firstAt = 0;
  let bytes = 0;
  let lines = 0;
  let chunks = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!firstAt) firstAt = performance.now() - started;
    bytes += value.length;
    for (const b of value) if (b === 10) lines++;
    if (++chunks % 20 === 0) {
      gc();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    // A slow reader: the server must wait for the socket rather than buffer what is left.
    await new Promise((r) => setTimeout(r, 0));
  }
  return {
    firstAt,
    totalMs: performance.now() - started,
    bytes,
    rows: lines - 1,
    chunks,
    growth: peak - before,
  };
}

describe('review and history exports', () => {
  it('export the review queue as the page filters it, formulas neutralised, with the record link', async () => {
    const { res, lines } = await csv(`/admin/export/review.csv?tenant=${tenant}`);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="review.csv"');
    expect(lines[0]).toBe(
      '"crm","tenant","account_id","account_name","state","status","cohort","confidence","reason","best_buyer_id","best_buyer_name","best_score","other_candidates","pinned","updated_at","record_url"',
    );
    expect(lines).toHaveLength(1 + 9);
    const row = lines.find((l) => l.includes('"108"'));
    expect(row).toBe(
      `"hubspot","${tenant}","108","Springfield 8","IL","needs_review","needs_review","0.6","Needs review: several buyers called Springfield","b1","City of Springfield","0.62","Springfield School District 186 (IL, School) 0.55","false","2026-01-01T00:08:00.000Z","https://app.example/hubspot/${tenant}/108"`,
    );
    expect(lines.join('\n')).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect((await csv(`/admin/export/review.csv?tenant=${tenant}&q=Springfield%201`)).lines).toHaveLength(2);
    expect(
      (await csv(`/admin/export/review.csv?tenant=${tenant}&cohort=matched_by_name`)).lines,
    ).toHaveLength(4);
    const bad = await fetch(`${base}/admin/export/review.csv?minConfidence=7`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/^query minConfidence: /);
  });

  it("export an account's or a run's history, a kept value in words", async () => {
    const account = await csv(`/admin/export/history.csv?crm=hubspot&accountId=101&tenant=${tenant}`);
    expect(account.res.headers.get('content-disposition')).toBe('attachment; filename="history-101.csv"');
    expect(account.lines).toHaveLength(1 + 2);
    expect(account.lines.join('\n')).toContain('"kept the person’s 1,400,000; ours (1,250,000) not written"');
    expect(account.lines.join('\n')).toContain(`"'@SUM(A1)"`);
    const run = await csv(`/admin/export/history.csv?run=${runId}`);
    expect(run.lines).toHaveLength(1 + 3);
    expect(run.lines[1]).toMatch(
      new RegExp(`^"2026-03-01T12:00:00.000Z","hubspot","${tenant}","10[12]","${runId}","backfill",`),
    );
    // Without a scope: every account's history (this file's database holds these three).
    expect((await csv('/admin/export/history.csv')).lines).toHaveLength(1 + 3);
    for (const [query, says] of [
      ['accountId=101', 'query crm: give the crm of the account'],
      ['run=abc', 'query run: must be a run id (digits)'],
      ['crm=hubspot&accountId=x', 'x is not a hubspot account id'],
      ['color=red', 'query: Unrecognized key: "color"'],
    ] as const) {
      const res = await fetch(`${base}/admin/export/history.csv?${query}`);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { message: string }).message, query).toBe(says);
    }
  });

  it('stream 20,000 review rows and 20,000 history rows in bounded memory', async () => {
    if (!url) return; // the bulk insert needs the server
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      `insert into account_outcomes (crm, tenant, account_id, account_name, status, cohort, confidence, reason, candidates, updated_at)
       select 'hubspot', 'bulk${tenant}', (1000 + g)::text, repeat('Name ', 20) || g, 'needs_review', 'needs_review', 0.6,
              'Needs review: ' || repeat('several buyers ', 5),
              '[{"buyerId":"b1","name":"City of Springfield","stateCode":"IL","type":"City","score":0.62},{"buyerId":"b2","name":"Springfield SD","stateCode":"IL","type":"School","score":0.55}]',
              date_trunc('milliseconds', now()) - g * interval '1 second'
       from generate_series(1, ${BULK}) g`,
    );
    await client.end();
    const { runs, writes } = await store.open();
    bulkRunId = (await runs.create({ kind: 'backfill', label: 'bulk' })).id;
    for (let i = 0; i < BULK; i += 2_000)
      await writes.recordFieldWrites(
        Array.from({ length: 2_000 }, (_, k) =>
          entry({ runId: bulkRunId, accountId: String(5000 + i + k), new: `${'value '.repeat(20)}${i + k}` }),
        ),
      );

    for (const path of [
      `/admin/export/review.csv?tenant=bulk${tenant}`,
      `/admin/export/history.csv?run=${bulkRunId}`,
    ]) {
      const s = await streamed(path);
      console.log(
        `${path}: ${s.rows} rows, ${s.bytes} bytes in ${s.chunks} chunks; first bytes after ${s.firstAt.toFixed(0)} ms of ${s.totalMs.toFixed(0)} ms; heap growth ${s.growth} bytes`,
      );
      expect(s.rows).toBe(BULK);
      // Written as it is read: the first page leaves long before the 40th is queried.
      expect(s.firstAt).toBeLessThan(s.totalMs / 2);
      expect(s.chunks).toBeGreaterThan(10);
      expect(s.growth).toBeLessThan(s.bytes / 4);
    }
  }, 120_000);
});
