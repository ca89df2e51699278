// What an operator watches, through a running service on the emulators and real Redis: /metrics after an
// enrichment, /readyz (paused queue, Redis down), JSON logs with request ids and no secret in any
// line, and Bull Board behind basic auth.
import { randomBytes, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import { createLogger } from '../../src/observe/logger.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, createTestService, refreshAndWait } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-observe-${randomUUID().slice(0, 8)}`;
const API_KEY = `key-${randomBytes(16).toString('hex')}`;
const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
const METRICS_TOKEN = randomBytes(16).toString('hex');

const lines: string[] = [];
const capture = new Writable({
  write(chunk, _enc, done) {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  },
});

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let base: string;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox()]);
  service = await createTestService({
    ...sandboxSettings(
      { buyerIntel: bi, hubspot: hs },
      { redisUrl: REDIS_URL, prefix },
      { worker: { writeBatchWaitMs: 20 } },
    ),
    api: { apiKeys: [API_KEY] },
    admin: ADMIN,
    security: { metrics: { token: METRICS_TOKEN }, apiDocsPublic: false, inboundAccountWindowMs: 0 },
    logger: createLogger({ level: 'debug', destination: capture }),
  });
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  base = (await service.startHttp(0, '127.0.0.1')).url;
  service.startWorker();
});
afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

const metric = (text: string, name: string, labels: string) =>
  Number(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

describe('/metrics', () => {
  it('counts upstream calls, outcomes, fields, notes and jobs after an enrichment', async () => {
    const id = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    await refreshAndWait(service, base, API_KEY, id, { 'x-request-id': 'req-test-0001' });
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(metric(text, 'bis_match_outcomes_total', 'crm="hubspot",status="enriched"')).toBe(1);
    expect(metric(text, 'bis_fields_written_total', 'crm="hubspot"')).toBeGreaterThan(5);
    expect(metric(text, 'bis_notes_created_total', 'crm="hubspot"')).toBeGreaterThan(0);
    expect(metric(text, 'bis_jobs', 'queue="enrich",state="completed"')).toBe(1);
    expect(text).toMatch(
      /^bis_upstream_calls_total\{api="buyer_intel",operation="getBuyerAttributesBulk",status="200"\} 1$/m,
    );
    expect(text).toMatch(
      /^bis_upstream_calls_total\{api="hubspot",operation="crm\.companies\.basicApi\.getById",status="200"\} \d+$/m,
    );
    expect(text).toMatch(/^bis_job_duration_seconds_count\{queue="enrich",outcome="completed"\} 1$/m);
  });
});

describe('/readyz', () => {
  it('is ready, then not while the queue is paused', async () => {
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    await service.queue.pause();
    const paused = await fetch(`${base}/readyz`);
    expect(paused.status).toBe(503);
    expect(await paused.json()).toEqual({ status: 'not ready' });
    await service.queue.resume();
  });

  it('is not ready when Redis is unreachable', async () => {
    const down = await createTestService({
      ...sandboxSettings({ buyerIntel: bi, hubspot: hs }, { redisUrl: 'redis://127.0.0.1:1', prefix }),
    });
    const http = await down.startHttp(0, '127.0.0.1');
    expect((await fetch(`${http.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${http.url}/healthz`)).status).toBe(200);
    await Promise.race([down.close(), new Promise((r) => setTimeout(r, 1000))]);
  });
});

describe('logs', () => {
  it('are JSON lines with the request id, and carry no token, key or secret', async () => {
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const request = parsed.find((l) => l.msg === 'http request' && l.path === '/api/refresh');
    expect(request).toMatchObject({ level: 'info', requestId: 'req-test-0001', status: 202 });
    const job = parsed.find((l) => l.msg === 'account enriched');
    expect(job).toMatchObject({
      level: 'info',
      crm: 'hubspot',
      status: 'enriched',
      jobId: expect.any(String),
    });
    const all = lines.join('\n');
    for (const secret of [API_KEY, hs.accessToken, hs.clientSecret, bi.token, ADMIN.password])
      expect(all).not.toContain(secret);
  });

  it('redact secrets a caller puts in a log line by mistake', () => {
    const before = lines.length;
    createLogger({ destination: capture }).info(
      {
        token: 'tok-123',
        headers: { authorization: 'Bearer abc' },
        email: { smtpUrl: 'smtp://u:smtp-pw@mail.example' },
        slack: { botToken: 'xoxb-bot-456' },
      },
      'oops',
    );
    const line = lines.slice(before).join('');
    expect(line).not.toContain('tok-123');
    expect(line).not.toContain('Bearer abc');
    expect(line).not.toContain('smtp-pw');
    expect(line).not.toContain('xoxb-bot-456');
    expect(line).toContain('[redacted]');
  });
});

describe('/admin/queues (Bull Board)', () => {
  it('asks for credentials and serves the board with them', async () => {
    const none = await fetch(`${base}/admin/queues`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Basic');
    const wrong = await fetch(`${base}/admin/queues`, {
      headers: { authorization: `Basic ${Buffer.from('ops:nope').toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
    const auth = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
    const board = await fetch(`${base}/admin/queues`, { headers: { authorization: auth } });
    expect(board.status).toBe(200);
    expect(await board.text()).toContain('<html');
    const api = await fetch(`${base}/admin/queues/api/queues`, { headers: { authorization: auth } });
    expect(api.status).toBe(200);
    expect(JSON.stringify(await api.json())).toContain('enrich');
  });
});
