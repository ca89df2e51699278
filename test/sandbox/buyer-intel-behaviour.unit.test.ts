// The sandbox behaves as the contract says, seen over raw HTTP (no client in between).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';

let sandbox: RunningBuyerIntelSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

async function get(path: string) {
  const res = await fetch(`${sandbox.url}${path}`, { headers: { Authorization: `Bearer ${sandbox.token}` } });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown> & { buyers?: { name: string; stateCode: string }[] },
  };
}
async function rows(bridgeId: string, body: unknown, query = 'pageSize=100') {
  const res = await fetch(`${sandbox.url}/api/external/bridge/${bridgeId}/row?${query}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${sandbox.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      totalItems: number;
      result: { rowId: string; columns: Record<string, { value: unknown; status: string | null }> }[];
      message?: string;
    },
  };
}

describe('quick search', () => {
  it('ranks the exact name first', async () => {
    const { body } = await get('/api/external/buyer/quick/search?buyerName=Travis%20County');
    expect(body.buyers?.[0]?.name).toBe('Travis County');
  });

  it('matches a common name too: "Austin ISD" finds the school district first', async () => {
    const { body } = await get(
      '/api/external/buyer/quick/search?buyerName=Austin%20ISD&buyerStateCode=Texas',
    );
    expect(body.buyers?.[0]?.name).toBe('Austin Independent School District');
  });

  it('filters by a StateMapping name, and silently ignores a value it does not know', async () => {
    const named = await get(
      '/api/external/buyer/quick/search?buyerName=Springfield&buyerStateCode=Illinois&limit=50',
    );
    expect(named.body.buyers?.length).toBeGreaterThan(0);
    expect(named.body.buyers?.every((b) => b.stateCode === 'IL')).toBe(true);
    const coded = await get(
      '/api/external/buyer/quick/search?buyerName=Springfield&buyerStateCode=IL&limit=50',
    );
    expect(new Set(coded.body.buyers?.map((b) => b.stateCode)).size).toBeGreaterThan(3);
  });

  it('honours limit and refuses a missing name', async () => {
    expect(
      (await get('/api/external/buyer/quick/search?buyerName=Springfield&limit=3')).body.buyers,
    ).toHaveLength(3);
    const missing = await get('/api/external/buyer/quick/search');
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('buyerName is required');
  });
});

describe('attributes', () => {
  const id = () => sandbox.dataset.buyers[0]?.id ?? '';

  it('names an unknown key in a 400', async () => {
    const { status, body } = await get(
      `/api/external/buyer/${id()}/attributes?attribute=Name&attribute=Nope,AlsoNope`,
    );
    expect(status).toBe(400);
    expect(body.message).toBe('unknown attribute key(s): Nope, AlsoNope');
  });

  it('takes both encodings', async () => {
    const a = await get(`/api/external/buyer/${id()}/attributes?attribute=Name&attribute=City`);
    const b = await get(`/api/external/buyer/${id()}/attributes?attribute=Name,City`);
    expect(a.body).toEqual(b.body);
    expect(Object.keys(a.body.buyerData as object)).toEqual(['Name', 'City']);
  });

  it('400 for a malformed id, 404 for an unknown one', async () => {
    expect((await get('/api/external/buyer/not-a-uuid/attributes')).status).toBe(400);
    expect((await get('/api/external/buyer/6f1c2d3e-0000-4000-8000-000000000000/attributes')).status).toBe(
      404,
    );
  });
});

describe('bridge rows', () => {
  const bridgeWith = (format: string) => {
    const bridge = sandbox.dataset.bridges.find((b) =>
      b.columns.some((c) => c.fieldFormat.baseFormat === format),
    );
    const column = bridge?.columns.find((c) => c.fieldFormat.baseFormat === format);
    if (!bridge || !column) throw new Error(`no ${format} column`);
    return { bridge, column, all: sandbox.dataset.rowsByBridge.get(bridge.bridgeId) ?? [] };
  };

  it('Equals on status, and the documented trap: an array with Equals matches nothing', async () => {
    const { bridge, all } = bridgeWith('url');
    const processed = all.filter((r) => r.status === 'Processed').length;
    const eq = await rows(bridge.bridgeId, {
      filters: { terms: [{ field: 'status', operation: 'Equals', value: 'Processed' }] },
    });
    expect(eq.body.totalItems).toBe(processed);
    const trap = await rows(bridge.bridgeId, {
      filters: { terms: [{ field: 'status', operation: 'Equals', value: ['Processed'] }] },
    });
    expect(trap.status).toBe(200);
    expect(trap.body.totalItems).toBe(0);
  });

  it('Any / None partition the rows of an enumeration column', async () => {
    const { bridge, column, all } = bridgeWith('enumeration');
    const value = column.fieldFormat.enumerationValues?.[0]?.value ?? '';
    const any = await rows(bridge.bridgeId, {
      filters: { terms: [{ field: column.columnId, operation: 'Any', value: [value] }] },
    });
    const none = await rows(bridge.bridgeId, {
      filters: { terms: [{ field: column.columnId, operation: 'None', value: [value] }] },
    });
    expect(any.body.totalItems).toBeGreaterThan(0);
    expect(any.body.totalItems + none.body.totalItems).toBe(all.length);
  });

  it('IsEmpty / IsNotEmpty and HasCellStatus see unprocessed cells', async () => {
    const withProcessing = sandbox.dataset.bridges.find((b) =>
      (sandbox.dataset.rowsByBridge.get(b.bridgeId) ?? []).some((r) =>
        Object.values(r.columns).some((c) => c.status === 'Processing'),
      ),
    );
    if (!withProcessing) throw new Error('no processing cell in the data set');
    const column = withProcessing.columns.find((c) =>
      (sandbox.dataset.rowsByBridge.get(withProcessing.bridgeId) ?? []).some(
        (r) => r.columns[c.name]?.status === 'Processing',
      ),
    );
    if (!column) throw new Error('unreachable');
    const status = await rows(withProcessing.bridgeId, {
      filters: { terms: [{ field: column.columnId, operation: 'HasCellStatus', value: ['Processing'] }] },
    });
    expect(status.body.totalItems).toBeGreaterThan(0);
    expect(status.body.result.every((r) => r.columns[column.name]?.status === 'Processing')).toBe(true);
    const empty = await rows(withProcessing.bridgeId, {
      filters: { terms: [{ field: column.columnId, operation: 'IsEmpty' }] },
    });
    const full = await rows(withProcessing.bridgeId, {
      filters: { terms: [{ field: column.columnId, operation: 'IsNotEmpty' }] },
    });
    expect(empty.body.totalItems + full.body.totalItems).toBe(
      sandbox.dataset.rowsByBridge.get(withProcessing.bridgeId)?.length,
    );
  });

  it('Contains and free-text query narrow the rows', async () => {
    const { bridge, all } = bridgeWith('text');
    const word = all[0]?.name.split(/\s+/).find((w) => w.length > 4) ?? '';
    const res = await rows(bridge.bridgeId, { query: word });
    expect(res.body.totalItems).toBeGreaterThan(0);
    expect(res.body.totalItems).toBeLessThanOrEqual(all.length);
  });

  it('sorts by a column id both ways, and 400s on a column name or unknown field', async () => {
    const { bridge, column } = bridgeWith('number');
    const asc = await rows(bridge.bridgeId, { sorts: [{ column: column.columnId, direction: 'ASC' }] });
    const values = asc.body.result
      .map((r) => r.columns[column.name]?.value)
      .filter((v): v is number => typeof v === 'number');
    expect(values).toEqual([...values].sort((a, b) => a - b));
    const byName = await rows(bridge.bridgeId, { sorts: [{ column: column.name, direction: 'ASC' }] });
    expect(byName.status).toBe(400);
    const badField = await rows(bridge.bridgeId, {
      filters: { terms: [{ field: 'internalScore', operation: 'Equals', value: 1 }] },
    });
    expect(badField.status).toBe(400);
  });

  it("400s on a sort term without its required direction, in the provider's error body", async () => {
    const { bridge, column } = bridgeWith('number');
    const res = await rows(bridge.bridgeId, { sorts: [{ column: column.columnId }] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: 400,
      error: 'Bad Request',
      code: 'request.body.invalid',
      message: 'sorts[0].direction is required (ASC or DESC)',
    });
  });

  it('enforces page bounds', async () => {
    const { bridge } = bridgeWith('url');
    expect((await rows(bridge.bridgeId, {}, 'pageSize=0')).status).toBe(400);
    expect((await rows(bridge.bridgeId, {}, 'pageSize=101')).status).toBe(400);
    expect((await rows(bridge.bridgeId, {}, 'pageNumber=0')).status).toBe(400);
    const beyond = await rows(bridge.bridgeId, {}, 'pageNumber=9999');
    expect(beyond.status).toBe(200);
    expect(beyond.body.result).toEqual([]);
  });

  it('answers 400 to malformed JSON and 415 to a form body', async () => {
    const { bridge } = bridgeWith('url');
    const url = `${sandbox.url}/api/external/bridge/${bridge.bridgeId}/row`;
    const auth = { Authorization: `Bearer ${sandbox.token}` };
    const malformed = await fetch(url, {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{"filters":',
    });
    expect(malformed.status).toBe(400);
    const form = await fetch(url, {
      method: 'PUT',
      headers: auth,
      body: new URLSearchParams({ query: 'x' }),
    });
    expect(form.status).toBe(415);
  });
});

describe('signal feeds', () => {
  it('rejects unknown enum values and a missing buyerId', async () => {
    expect((await get('/api/external/feed/all/top-signals?sort=Newest')).status).toBe(400);
    expect((await get('/api/external/feed/all/top-signals?filterType=RFP,Nope')).status).toBe(400);
    expect((await get('/api/external/feed/all/buyer-signals')).status).toBe(400);
  });

  it('status Actioned includes Attending and Sponsoring', async () => {
    const actioned = sandbox.dataset.rows.filter((r) =>
      ['Actioned', 'Attending', 'Sponsoring'].includes(r.userStatus),
    );
    const from = new Date();
    from.setUTCMonth(from.getUTCMonth() - 24);
    const expected = actioned.filter((r) => r.signalDate >= from.toISOString()).length;
    const res = await get(
      '/api/external/feed/all/top-signals?status=Actioned&relativeDatePeriodFrom=LastTwoYears',
    );
    expect(res.body.totalItems).toBe(expected);
  });

  it('the restricted token never sees private bridges in the feed', async () => {
    const res = await fetch(
      `${sandbox.url}/api/external/feed/all/top-signals?relativeDatePeriodFrom=LastTwoYears&pageSize=100`,
      {
        headers: { Authorization: `Bearer ${sandbox.restrictedToken}` },
      },
    );
    const body = (await res.json()) as { result: { bridge: { bridgeId: string } }[] };
    const privateIds = new Set(
      sandbox.dataset.bridges.filter((b) => !b.sharedWithAll).map((b) => b.bridgeId),
    );
    expect(body.result.length).toBeGreaterThan(0);
    expect(body.result.some((s) => privateIds.has(s.bridge.bridgeId))).toBe(false);
  });
});

describe('a provider that serves only the documented operations (documentedOnly)', () => {
  it('answers 404 to the criteria search and the schema, and the documented operations as before', async () => {
    const strict = await startSandbox({ documentedOnly: true });
    try {
      const auth = { Authorization: `Bearer ${strict.token}` };
      const criteria = await fetch(`${strict.url}/api/external/buyer/search`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: 'austintexas.gov' }),
      });
      expect(criteria.status).toBe(404);
      const schema = await fetch(`${strict.url}/api/external/buyer/schema`, { headers: auth });
      expect(schema.status).toBe(404);
      const search = await fetch(`${strict.url}/api/external/buyer/quick/search?buyerName=Travis%20County`, {
        headers: auth,
      });
      expect(((await search.json()) as { buyers: { name: string }[] }).buyers[0]?.name).toBe('Travis County');
      // The default emulator serves the criteria search (the contract names it).
      const served = await fetch(`${sandbox.url}/api/external/buyer/search`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${sandbox.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: 'austintexas.gov' }),
      });
      expect(served.status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
