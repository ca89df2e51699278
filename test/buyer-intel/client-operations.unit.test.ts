// Every client operation against the sandbox over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { BUYER_FIELDS, type BuyerIntelClient } from '../../src/buyer-intel/index.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';

let sandbox: RunningBuyerIntelSandbox;
let client: BuyerIntelClient;
let urls: string[];

beforeAll(async () => {
  sandbox = await startSandbox();
  ({ client, urls } = clientFor(sandbox));
});
afterAll(() => sandbox.close());

const austinTx = () => {
  const b = sandbox.dataset.buyers.find((x) => x.name === 'City of Austin' && x.stateCode === 'TX');
  if (!b) throw new Error('data set lacks City of Austin, TX');
  return b;
};
const busiestBuyer = () =>
  [...sandbox.dataset.rowsByBuyer.entries()].sort((a, b) => b[1].length - a[1].length)[0]?.[0] ?? '';

describe('buyers', () => {
  it('quick search finds the Austin buyers of Texas only, sending the state as its StateMapping name', async () => {
    const { buyers } = await client.searchBuyers({ buyerName: 'Austin', buyerStateCode: 'TX', limit: 20 });
    expect(urls.at(-1)).toContain('buyerStateCode=Texas');
    const names = buyers.map((b) => b.name);
    expect(names).toEqual(
      expect.arrayContaining(['City of Austin', 'Austin County', 'Austin Independent School District']),
    );
    expect(buyers.every((b) => b.stateCode === 'TX')).toBe(true);
    expect(buyers.length).toBeLessThanOrEqual(20);
  });

  it('quick search without a state finds Austin in Minnesota too', async () => {
    const { buyers } = await client.searchBuyers({ buyerName: 'City of Austin', limit: 10 });
    expect(new Set(buyers.filter((b) => b.name === 'City of Austin').map((b) => b.stateCode))).toEqual(
      new Set(['TX', 'MN']),
    );
  });

  it('quick search converts names and ISO codes too', async () => {
    for (const state of ['Texas', 'US-TX', 'tx']) {
      const { buyers } = await client.searchBuyers({ buyerName: 'Austin', buyerStateCode: state });
      expect(buyers.length).toBeGreaterThan(0);
      expect(buyers.every((b) => b.stateCode === 'TX')).toBe(true);
    }
  });

  it('getBuyerAttributesBulk returns exactly the selected keys, null where unset', async () => {
    const buyer = austinTx();
    const res = await client.getBuyerAttributesBulk(buyer.id, [
      'Name',
      'Population',
      'NcesId',
      'EmailDomains',
    ]);
    expect(res.buyerId).toBe(buyer.id);
    expect(Object.keys(res.buyerData ?? {}).sort()).toEqual(['EmailDomains', 'Name', 'NcesId', 'Population']);
    expect(res.buyerData?.Name).toBe('City of Austin');
    expect(typeof res.buyerData?.Population).toBe('number');
    expect(res.buyerData?.NcesId).toBeNull(); // a city has no NCES id
  });

  it('getBuyerAttributesBulk without a selection returns all 179 keys', async () => {
    const res = await client.getBuyerAttributesBulk(austinTx().id);
    expect(Object.keys(res.buyerData ?? {}).sort()).toEqual([...BUYER_FIELDS].sort());
  });

  it('getBuyerAttribute returns one value', async () => {
    const res = await client.getBuyerAttribute(austinTx().id, 'StateCode');
    expect(res.buyerData).toBe('TX');
  });

  it('getBuyerSchema lists every attribute key', async () => {
    const { fields } = await client.getBuyerSchema();
    expect(fields.map((f) => f.key)).toEqual([...BUYER_FIELDS]);
  });

  it('searchBuyersByCriteria narrows by state and type', async () => {
    const { buyers } = await client.searchBuyersByCriteria({
      name: 'Austin',
      stateCode: 'Texas',
      type: 'SchoolDistrict',
    });
    expect(buyers.map((b) => b.name)).toContain('Austin Independent School District');
    expect(buyers.every((b) => b.type === 'SchoolDistrict' && b.stateCode === 'TX')).toBe(true);
  });

  it('getBuyerSummary summarises a tracked buyer with sources pointing at bridges', async () => {
    const summary = await client.getBuyerSummary(busiestBuyer());
    const source = summary.summary?.whatsRecent.sections[0]?.sources?.[0];
    expect(source && sandbox.dataset.bridgesById.has(source.triggerId)).toBe(true);
  });
});

describe('bridges', () => {
  it('listBridges pages through every bridge, filters by type and sorts', async () => {
    const all = [];
    for await (const b of client.iterateBridges({}, { pageSize: 5 })) all.push(b);
    expect(all).toHaveLength(sandbox.dataset.bridges.length);
    const rfp = await client.listBridges({
      filterType: ['RFP'],
      sortField: 'RowsCount',
      sortDirection: 'DESC',
    });
    expect(rfp.result.length).toBeGreaterThan(0);
    expect(rfp.result.every((b) => b.filterType === 'RFP')).toBe(true);
    const counts = rfp.result.map((b) => b.rowCount ?? 0);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it('getBridge and getBridgeColumnMetadata describe a bridge', async () => {
    const bridge = sandbox.dataset.bridges[0];
    if (!bridge) throw new Error('no bridges');
    const got = await client.getBridge(bridge.bridgeId);
    expect(got.name).toBe(bridge.name);
    expect(got.rowCount).toBe(sandbox.dataset.rowsByBridge.get(bridge.bridgeId)?.length);
    const meta = await client.getBridgeColumnMetadata(bridge.bridgeId);
    expect(meta.map((m) => m.columnId)).toEqual(bridge.columns.map((c) => c.columnId));
    expect(meta[0]?.column?.fieldFormat?.baseFormat).toBeTruthy();
  });

  it('listBridgeRows filters by a column, sorts by rowUpdatedAt and parses wrapped cells', async () => {
    const bridge = sandbox.dataset.bridges.find((b) =>
      b.columns.some((c) => c.fieldFormat.baseFormat === 'number'),
    );
    if (!bridge) throw new Error('no bridge with a number column');
    const numberColumn = bridge.columns.find((c) => c.fieldFormat.baseFormat === 'number');
    if (!numberColumn) throw new Error('unreachable');
    const page = await client.listBridgeRows(
      bridge.bridgeId,
      {
        filters: { terms: [{ field: numberColumn.columnId, operation: 'GreaterThan', value: 50 }] },
        sorts: [{ column: 'rowUpdatedAt', direction: 'DESC' }],
      },
      { pageSize: 20 },
    );
    expect(page.result.length).toBeGreaterThan(0);
    for (const row of page.result) {
      const cell = row.columns[numberColumn.name];
      expect(cell).toMatchObject({ value: expect.any(Number) });
      expect(cell?.value as number).toBeGreaterThan(50);
    }
    const updated = page.result.map((r) => r.updatedAt ?? '');
    expect(updated).toEqual([...updated].sort().reverse());
  });

  it('setBridgeRowStatus moves a row and the new status shows in the feeds', async () => {
    const row = sandbox.dataset.rows.find((r) => r.userStatus === 'New' && r.buyerId);
    if (!row?.buyerId) throw new Error('no New row with a buyer');
    const updated = await client.setBridgeRowStatus(row.bridgeId, row.rowId, 'Saved');
    expect(updated.rowId).toBe(row.rowId);
    const saved = [];
    for await (const s of client.iterateRecentBuyerSignals(
      { buyerId: row.buyerId, status: ['Saved'], relativeDatePeriodFrom: 'LastTwoYears' },
      { pageSize: 100 },
    )) {
      saved.push(s.row.rowId);
    }
    expect(saved).toContain(row.rowId);
  });
});

describe('signal feeds', () => {
  it('recent buyer signals default to New within the last month, newest first', async () => {
    const buyerId = busiestBuyer();
    const page = await client.listRecentBuyerSignals({ buyerId, pageSize: 50 });
    const monthAgo = new Date();
    monthAgo.setUTCMonth(monthAgo.getUTCMonth() - 1);
    const rows = sandbox.dataset.rowsByBuyer.get(buyerId) ?? [];
    const expected = rows.filter((r) => r.userStatus === 'New' && r.signalDate >= monthAgo.toISOString());
    expect(page.totalItems).toBe(expected.length);
    for (const s of page.result) {
      expect(s.row.buyerId).toBe(buyerId);
      expect(s.bridge.columns.length).toBeGreaterThan(0);
    }
  });

  it('top signals sort by hotness by default and by date on request', async () => {
    const hot = await client.listTopRecentSignals({ relativeDatePeriodFrom: 'LastYear', pageSize: 30 });
    const hotness = hot.result.map((s) => sandbox.dataset.rowsById.get(s.row.rowId)?.hotness ?? -1);
    expect(hotness).toEqual([...hotness].sort((a, b) => b - a));
    const byDate = await client.listTopRecentSignals({
      relativeDatePeriodFrom: 'LastYear',
      sort: 'Date',
      pageSize: 30,
    });
    const dates = byDate.result.map((s) => sandbox.dataset.rowsById.get(s.row.rowId)?.signalDate ?? '');
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('filters by filter type and trigger ids in both array encodings', async () => {
    const bridge = sandbox.dataset.bridges.find((b) => b.filterType === 'RFP' && b.sharedWithAll);
    if (!bridge) throw new Error('no RFP bridge');
    for (const arrayEncoding of ['form', 'repeat'] as const) {
      const { client: c, urls: seen } = clientFor(sandbox, { arrayEncoding });
      const page = await c.listTopRecentSignals({
        filterType: ['RFP', 'Meeting'],
        triggerIds: [bridge.bridgeId],
        relativeDatePeriodFrom: 'LastTwoYears',
      });
      expect(page.result.length).toBeGreaterThan(0);
      expect(page.result.every((s) => s.bridge.bridgeId === bridge.bridgeId)).toBe(true);
      const query = new URL(seen.at(-1) ?? '').searchParams;
      expect(query.getAll('filterType')).toEqual(
        arrayEncoding === 'form' ? ['RFP,Meeting'] : ['RFP', 'Meeting'],
      );
    }
  });

  it('a longer period never returns fewer signals', async () => {
    const periods = [
      'LastOneDay',
      'LastSevenDays',
      'LastThirtyDays',
      'LastSixMonths',
      'LastTwoYears',
    ] as const;
    const totals = [];
    for (const p of periods)
      totals.push((await client.listTopRecentSignals({ relativeDatePeriodFrom: p })).totalItems);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    expect(totals[0]).toBeLessThan(totals.at(-1) ?? 0);
  });
});
