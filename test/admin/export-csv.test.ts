// The Accounts page's listing and its CSV export against a real store: the page pages 50 at a time with
// totals, the download holds what the store holds with formulas neutralised, and a 20,000-row export
// streams without the heap growing by anything like the payload.
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import express from 'express';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAdminAccountsRoutes } from '../../src/admin/accounts-routes.ts';
import { Store } from '../../src/store/store.ts';
import { releaseTestFile } from '../helpers/release.ts';
import { seedConsoleOutcomes } from '../helpers/seed-outcomes.ts';
import { serviceDatabase } from '../helpers/test-database.ts';

const tenant = `acc-${Math.random().toString(36).slice(2, 8)}`;
let store: Store;
let base: string;
let server: import('node:http').Server;
let url: string | undefined;

beforeAll(async () => {
  const settings = await serviceDatabase();
  url = 'url' in settings ? settings.url : undefined;
  store = new Store(settings);
  await seedConsoleOutcomes(store, tenant);
  const router = express.Router();
  addAdminAccountsRoutes(router, { store });
  const app = express().use('/admin', router);
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  server?.close();
  await store?.close();
  await releaseTestFile();
});

describe('accounts page and export', () => {
  it('pages 50 at a time with totals, Next and Previous', async () => {
    const first = await (await fetch(`${base}/admin/accounts?tenant=${tenant}`)).text();
    expect(first).toContain('1–50 of 60');
    expect(first).toContain('Buyer 59');
    const next = /rel="next" href="([^"]+)"/.exec(first)?.[1]?.replace(/&amp;/g, '&');
    const second = await (await fetch(`${base}${next}`)).text();
    expect(second).toContain('51–60 of 60');
    const prev = /rel="prev" href="([^"]+)"/.exec(second)?.[1]?.replace(/&amp;/g, '&');
    expect(await (await fetch(`${base}${prev}`)).text()).toContain('1–50 of 60');
    const searched = await (await fetch(`${base}/admin/accounts?tenant=${tenant}&q=County%2042`)).text();
    expect(searched).toContain('1–1 of 1');
    expect(searched).toContain('Buyer 42');
    expect(searched).toContain('UTC</time>');
    expect((await fetch(`${base}/admin/accounts?minConfidence=7`)).status).toBe(400);
  });

  it('downloads what the store holds, formulas neutralised', async () => {
    const res = await fetch(`${base}/admin/export/accounts.csv?tenant=${tenant}&cohort=needs_review`);
    expect(res.headers.get('content-disposition')).toContain('attachment');
    const lines = (await res.text()).trim().split('\r\n');
    const { outcomes } = await store.open();
    expect(lines.length - 1).toBe(await outcomes.count({ tenant, cohort: 'needs_review' }));
    const all = await (await fetch(`${base}/admin/export/accounts.csv?tenant=${tenant}`)).text();
    expect(all).toContain(`"'=HYPERLINK(""x"")"`);
    expect(all.trim().split('\r\n')).toHaveLength(61);
  });

  it('streams 20,000 rows with bounded heap', async () => {
    if (!url) return; // bulk insert needs the server
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      `insert into account_outcomes (crm, tenant, account_id, account_name, status, cohort, candidates, buyer_name, updated_at)
       select 'hubspot', 'bulk-${tenant}', 'x' || g, repeat('Name ', 20) || g, 'enriched', 'matched_by_name', '[]', 'Buyer ' || g, date_trunc('milliseconds', now())
       from generate_series(1, 20000) g`,
    );
    await client.end();
    // Retained heap, not garbage awaiting collection: collect before each sample.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const res = await fetch(`${base}/admin/export/accounts.csv?tenant=bulk-${tenant}`);
    if (!res.body) throw new Error('no body');
    const reader = res.body.getReader();
    let bytes = 0;
    let lines = 0;
    let chunks = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      for (const b of value) if (b === 10) lines++;
      if (++chunks % 20 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
      await new Promise((r) => setTimeout(r, 0));
    }
    const growth = peak - before;
    console.log(`export: ${lines - 1} rows, ${bytes} bytes, heap growth ${growth} bytes`);
    expect(lines - 1).toBe(20000);
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await (await fetch(`${base}/admin/accounts`)).text();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    console.log(`accounts page over 20,060 rows: p95 ${times[18]?.toFixed(1)} ms`);
    expect(growth).toBeLessThan(bytes / 4);
  }, 60_000);
});
