// The sandbox's answers validate against the provider's published OpenAPI (kept in test/fixtures/reference,
// its origin in SOURCES.md), for every operation that document describes. Raw HTTP, so nothing of our client's tolerance hides a mismatch.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';

const SPEC_PATH = new URL('../fixtures/reference/buyer-intelligence-openapi.json', import.meta.url);
const openapi = JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as {
  paths: Record<
    string,
    Record<
      string,
      { operationId: string; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }
    >
  >;
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(openapi, 'openapi');

function validatorFor(operationId: string) {
  for (const [path, methods] of Object.entries(openapi.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (op.operationId !== operationId) continue;
      const schema = op.responses['200']?.content?.['application/json']?.schema;
      if (!schema) throw new Error(`${operationId} has no 200 schema`);
      // Re-root the response schema inside the document so its $refs resolve.
      const pointer = `openapi#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/responses/200/content/application~1json/schema`;
      return ajv.compile({ $ref: pointer });
    }
  }
  throw new Error(`operation ${operationId} is not in the reference`);
}

let sandbox: RunningBuyerIntelSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${sandbox.token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return res.json();
}

function expectValid(operationId: string, body: unknown) {
  const validate = validatorFor(operationId);
  const ok = validate(body);
  expect(ok, `${operationId}: ${ajv.errorsText(validate.errors, { separator: '\n' })}`).toBe(true);
}

describe('sandbox responses match the provider OpenAPI', () => {
  const rich = () =>
    [...sandbox.dataset.rowsByBuyer.entries()].sort((a, b) => b[1].length - a[1].length)[0]?.[0] ?? '';
  const bridge = () => sandbox.dataset.bridges[0]?.bridgeId ?? '';

  it('every operation of the reference is covered here', () => {
    const covered = [
      'searchBuyers',
      'getBuyerAttribute',
      'getBuyerAttributesBulk',
      'listBridges',
      'getBridge',
      'listBridgeRows',
      'setBridgeRowStatus',
      'getBridgeColumnMetadata',
      'listRecentBuyerSignals',
      'listTopRecentSignals',
      'getBuyerSummary',
    ];
    const inSpec = Object.values(openapi.paths).flatMap((m) => Object.values(m).map((op) => op.operationId));
    expect(inSpec.sort()).toEqual(covered.sort());
  });

  it('searchBuyers', async () => {
    expectValid(
      'searchBuyers',
      await call('GET', '/api/external/buyer/quick/search?buyerName=Springfield&limit=25'),
    );
  });

  it('getBuyerAttribute and getBuyerAttributesBulk', async () => {
    const id = rich();
    expectValid('getBuyerAttribute', await call('GET', `/api/external/buyer/${id}/attribute/Population`));
    expectValid('getBuyerAttributesBulk', await call('GET', `/api/external/buyer/${id}/attributes`));
  });

  it('listBridges, getBridge, getBridgeColumnMetadata', async () => {
    expectValid('listBridges', await call('GET', '/api/external/bridge?pageSize=100'));
    for (const b of sandbox.dataset.bridges) {
      expectValid('getBridge', await call('GET', `/api/external/bridge/${b.bridgeId}`));
      expectValid(
        'getBridgeColumnMetadata',
        await call('GET', `/api/external/bridge/${b.bridgeId}/column/metadata`),
      );
    }
  });

  it('listBridgeRows for every bridge', async () => {
    for (const b of sandbox.dataset.bridges) {
      expectValid(
        'listBridgeRows',
        await call('PUT', `/api/external/bridge/${b.bridgeId}/row?pageSize=100`, {}),
      );
    }
  });

  it('setBridgeRowStatus', async () => {
    const row = sandbox.dataset.rowsByBridge.get(bridge())?.[0];
    expectValid(
      'setBridgeRowStatus',
      await call('PATCH', `/api/external/bridge/${bridge()}/row/${row?.rowId}/status`, {
        newStatus: 'Actioned',
      }),
    );
  });

  it('listRecentBuyerSignals and listTopRecentSignals', async () => {
    expectValid(
      'listRecentBuyerSignals',
      await call(
        'GET',
        `/api/external/feed/all/buyer-signals?buyerId=${rich()}&relativeDatePeriodFrom=LastTwoYears&pageSize=100`,
      ),
    );
    expectValid(
      'listTopRecentSignals',
      await call('GET', '/api/external/feed/all/top-signals?pageSize=100&status=New,Saved'),
    );
  });

  it('getBuyerSummary', async () => {
    expectValid('getBuyerSummary', await call('GET', `/api/external/buyer/${rich()}/summary`));
  });
});
