import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { clientFor, startSandbox } from '../helpers/buyer-intel-sandbox.ts';

let sandbox: RunningBuyerIntelSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

describe('pagination', () => {
  it('iterates a bridge across more than 3 pages, every row once, in server order', async () => {
    const bridge = [...sandbox.dataset.bridges].sort(
      (a, b) =>
        (sandbox.dataset.rowsByBridge.get(b.bridgeId)?.length ?? 0) -
        (sandbox.dataset.rowsByBridge.get(a.bridgeId)?.length ?? 0),
    )[0];
    if (!bridge) throw new Error('no bridge');
    const total = sandbox.dataset.rowsByBridge.get(bridge.bridgeId)?.length ?? 0;
    expect(total).toBeGreaterThan(3 * 100);
    const { client, urls } = clientFor(sandbox);
    const ids: string[] = [];
    for await (const row of client.iterateBridgeRows(bridge.bridgeId, {}, { pageSize: 100 }))
      ids.push(row.rowId);
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect(urls).toHaveLength(Math.ceil(total / 100));
  });

  it('stops at the item limit without fetching further pages', async () => {
    const { client, urls } = clientFor(sandbox);
    const got = [];
    for await (const s of client.iterateTopRecentSignals(
      { relativeDatePeriodFrom: 'LastTwoYears' },
      { pageSize: 10, limit: 35 },
    )) {
      got.push(s);
    }
    expect(got).toHaveLength(35);
    expect(urls).toHaveLength(4);
  });
});

describe('attribute encodings', () => {
  const keys = ['Name', 'Population', 'StateCode'] as const;

  it.each([
    ['repeat', ['Name', 'Population', 'StateCode']],
    ['comma', ['Name,Population,StateCode']],
  ] as const)('%s encoding is sent as such and answered the same', async (attributeEncoding, sent) => {
    const { client, urls } = clientFor(sandbox, { attributeEncoding });
    const buyer = sandbox.dataset.buyers[0];
    if (!buyer) throw new Error('no buyer');
    const res = await client.getBuyerAttributesBulk(buyer.id, keys);
    expect(new URL(urls[0] ?? '').searchParams.getAll('attribute')).toEqual(sent);
    expect(Object.keys(res.buyerData ?? {}).sort()).toEqual([...keys].sort());
    expect(res.buyerData?.Name).toBe(buyer.name);
  });
});
