// What an operator reads from a running role: `start` writes one JSON line per HTTP request (method,
// the matched route, status, duration, request id; never a query value or a key) at LOG_LEVEL, and a
// higher LOG_LEVEL silences them; an error no route handled is one line with its stack.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import express from 'express';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { createLogger } from '../../src/observe/logger.ts';
import { createHttpApp } from '../../src/service/http-app.ts';
import { listen } from '../../src/service/listen.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { cliDatabase, sandboxCliEnv } from '../helpers/cli.ts';
import { eventually } from '../helpers/poll.ts';
import { freePort } from '../helpers/ports.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;
const prefix = `test-rolelogs-${randomUUID().slice(0, 8)}`;
const API_KEY = 'k'.repeat(32);

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({})]);
});
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await Promise.all([bi?.close(), hs?.close()]);
});

type Line = Record<string, unknown>;

/** Runs `start` until `use` is done with its URL, then SIGTERM; resolves with every stderr line. */
async function withStart(logLevel: string, use: (url: string) => Promise<void>): Promise<Line[]> {
  const port = await freePort();
  const database = (await cliDatabase()).env;
  const child = spawn(process.execPath, [CLI, 'start'], {
    env: {
      PATH: process.env.PATH ?? '',
      ...database,
      REDIS_URL,
      REDIS_PREFIX: prefix,
      HOST: '127.0.0.1',
      PORT: String(port),
      REENRICH_CRON: 'off',
      API_KEYS: API_KEY,
      LOG_LEVEL: logLevel,
      ...sandboxCliEnv(bi, hs),
    },
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  const lines = () =>
    stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);
  // Found by polling its port, not by its `started` line: a LOG_LEVEL above info hides that line.
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () =>
      child.exitCode !== null ||
      (await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )),
    'start answering /healthz',
    // The test's own bound (60 s) is the real one: a loaded machine may take most of it to start.
    { timeoutMs: 55_000, intervalMs: 100 },
  );
  if (child.exitCode !== null) throw new Error(`start exited:\n${stderr}`);
  await use(url);
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  return lines();
}

describe('the start role logs', () => {
  it('one JSON line per request, with the route and the request id and no query value or key', async () => {
    const lines = await withStart('info', async (url) => {
      const health = await fetch(`${url}/healthz`, { headers: { 'x-request-id': 'req-logs-0001' } });
      expect(health.status).toBe(200);
      const search = await fetch(`${url}/api/review?q=query-value-secret`, {
        headers: { authorization: `Bearer ${API_KEY}`, 'x-request-id': 'req-logs-0002' },
      });
      expect(search.status).toBe(200);
      const account = await fetch(`${url}/api/accounts/hubspot/abc!`, {
        headers: { authorization: `Bearer ${API_KEY}`, 'x-request-id': 'req-logs-0003' },
      });
      expect(account.status).toBe(400);
      const denied = await fetch(`${url}/api/runs`, { headers: { authorization: 'Bearer wrong-key-value' } });
      expect(denied.status).toBe(401);
      // A person creates a company; HubSpot delivers its webhook, signed, to the receiver.
      hs.webhooks.configure({ targetUrl: `${url}/webhooks/hubspot`, propertyChanges: [] });
      hs.store.createCompany({ name: 'Travis County', state: 'TX' }, { source: 'CRM_UI' });
      await eventually(
        async () => hs.webhooks.deliveries.some((d) => d.state === 'delivered'),
        'the webhook delivered',
        { timeoutMs: 20_000, intervalMs: 100 },
      );
    });
    const requests = lines.filter((l) => l.msg === 'http request');
    expect(requests.find((l) => l.requestId === 'req-logs-0001')).toMatchObject({
      level: 'info',
      method: 'GET',
      route: '/healthz',
      status: 200,
      durationMs: expect.any(Number),
    });
    expect(requests.find((l) => l.requestId === 'req-logs-0002')).toMatchObject({
      route: '/api/review',
      path: '/api/review',
      status: 200,
    });
    expect(requests.find((l) => l.requestId === 'req-logs-0003')).toMatchObject({
      route: '/api/accounts/:crm/:accountId',
      status: 400,
    });
    expect(requests.find((l) => l.status === 401)).toMatchObject({ requestId: expect.any(String) });
    // The delivery's line names the run and the job it queued, and the job's own lines carry that id.
    const delivery = requests.find((l) => l.path === '/webhooks/hubspot');
    expect(delivery).toMatchObject({ status: 200, runId: expect.any(String), jobIds: [expect.any(String)] });
    const [jobId] = (delivery?.jobIds ?? []) as string[];
    expect(lines.some((l) => l.jobId === jobId && l.msg !== 'http request')).toBe(true);
    // …and the worker's lines of that job name the delivery's request and run.
    const jobLines = lines.filter((l) => l.jobId === jobId && l.msg !== 'http request');
    expect(jobLines.find((l) => 'runId' in l)).toMatchObject({
      requestId: delivery?.requestId,
      runId: delivery?.runId,
    });
    const all = JSON.stringify(lines);
    for (const secret of ['query-value-secret', API_KEY, 'wrong-key-value', hs.accessToken, bi.token])
      expect(all).not.toContain(secret);
  }, 60_000);

  it('honours LOG_LEVEL: at warn, neither request lines nor any other info line', async () => {
    const lines = await withStart('warn', async (url) => {
      expect(
        (await fetch(`${url}/api/runs`, { headers: { authorization: `Bearer ${API_KEY}` } })).status,
      ).toBe(200);
    });
    expect(lines.filter((l) => l.level === 'info')).toEqual([]);
  }, 60_000);
});

describe('an error no route handled', () => {
  it('is one "unhandled error" line with the stack and the request id, and a 500 naming the id', async () => {
    let out = '';
    const destination = new Writable({
      write(chunk, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const api = express.Router();
    api.get('/boom', function explodesOnPurpose() {
      throw new Error('kaboom');
    });
    const server = await listen(
      createHttpApp({ api, logger: createLogger({ destination }) }),
      0,
      '127.0.0.1',
    );
    try {
      const res = await fetch(`${server.url}/api/boom`, { headers: { 'x-request-id': 'req-boom-0001' } });
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ requestId: 'req-boom-0001' });
    } finally {
      await server.close();
    }
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    const error = lines.find((l) => l.msg === 'unhandled error') as { err?: { stack?: string } } & Line;
    expect(error).toMatchObject({ level: 'error', requestId: 'req-boom-0001' });
    expect(error.err?.stack).toContain('explodesOnPurpose');
    expect(lines.find((l) => l.msg === 'http request')).toMatchObject({ route: '/api/boom', status: 500 });
  });
});
