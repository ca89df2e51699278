// Our OpenAPI document, served publicly when configured so (API_DOCS_PUBLIC; closed by default, see
// test/webhooks/inbound-security.test.ts), describes what is served: every documented operation exists
// (it answers 401 without credentials, never 404), and the readable page lists them all.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-openapi-${randomUUID().slice(0, 8)}`;
let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let base: string;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox()]);
  service = await createTestService({
    ...sandboxSettings({ buyerIntel: bi, hubspot: hs }, { redisUrl: REDIS_URL, prefix }),
    security: { metrics: {}, apiDocsPublic: true, inboundAccountWindowMs: 0 },
  });
  base = (await service.startHttp(0, '127.0.0.1')).url;
});
afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

describe('/api/openapi.json', () => {
  it('is served without credentials, and every documented operation exists', async () => {
    const res = await fetch(`${base}/api/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => [m, path] as const),
    );
    expect(operations.length).toBeGreaterThanOrEqual(4);
    for (const [method, path] of operations) {
      const url = path.replace('{crm}', 'hubspot').replace('{accountId}', '1').replace('{id}', 'x');
      const answer = await fetch(`${base}${url}`, {
        method: method.toUpperCase(),
        headers: { 'content-type': 'application/json' },
        ...(method === 'get' ? {} : { body: '{}' }),
      });
      expect([method, path, answer.status]).toEqual([method, path, 401]);
    }
    const page = await (await fetch(`${base}/api/docs`)).text();
    for (const [, path] of operations) expect(page).toContain(path);
  });
});
