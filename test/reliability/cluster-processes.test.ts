// @redis-cluster: real `serve` and `worker` processes on a private 3-master cluster with replicas.
// Issue 44, findings 1, 2 and 6, as an operations team meets them: REDIS_URL names one node (the seed,
// made the master of the prefix's slot so that every queue lives on it); webhooks arrive at 5/s while
// 3 workers enrich; the seed is killed (kill -9) and its replica takes over; later `serve` gets SIGTERM
// with 40 API requests in flight, and the cluster loses its data (FLUSHALL on every master).
// Asserts: every webhook is answered (HubSpot retries a 5xx, so does the poster), every account ends
// enriched with its buyer and no CRM status disagrees with PostgreSQL's outcome; work resumes within
// 30 s of the failover without a restart; every worker's /healthz says 200 afterwards and every line
// a process printed is JSON; the 40 requests are all answered and `serve` exits 0; the maintenance
// schedules are declared again within 30 s of the FLUSHALL. Its own cluster and database, so it runs
// only in `npm run test:cluster` (skipped elsewhere, saying so) and needs a PostgreSQL server.
// The failover part passes on a plain ioredis Cluster too when nothing reconnects from scratch during
// it; cluster-seed-failover.test.ts forces that reconnect and fails without RememberingCluster. The
// FLUSHALL part fails without the schedule keeper, the SIGTERM part without the HTTP drain.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxBuyer } from '../../emulators/buyer-intel/data/types.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { MAINTENANCE_QUEUE, PENDING_SWEEP_SCHEDULE } from '../../queues/maintenance.ts';
import { createRedis } from '../../queues/redis.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { type PrivateCluster, privateCluster } from '../helpers/private-cluster.ts';
import {
  CLI,
  cliEnv,
  companyFor,
  creationEvent,
  distinctBuyers,
  freePort,
  postHubSpotWebhook,
  untilStarted,
  waitFor,
} from '../helpers/reliability-env.ts';
import { concurrentDatabase } from '../helpers/test-database.ts';

const ON_CLUSTER_RUN = (process.env.REDIS_URL ?? '').includes('cluster=true');
const HAS_SERVER = Boolean(process.env.TEST_DATABASE_URL);
const ACCOUNTS = 100;
const PREFIX = '{bisrel}';
const API_KEY = 'r'.repeat(32);

let cluster: PrivateCluster;
let seed: number;
let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let databaseUrl: string;
let env: Record<string, string>;
let serve: ChildProcessWithoutNullStreams;
let servePort: number;
const workers: { proc: ChildProcessWithoutNullStreams; health: number }[] = [];
const printed: string[] = [];

function collect(proc: ChildProcessWithoutNullStreams): void {
  let rest = '';
  const take = (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    printed.push(...lines.filter((l) => l.trim()));
  };
  proc.stdout.on('data', take);
  proc.stderr.on('data', take);
}

function start(
  role: 'serve' | 'worker',
  extra: Record<string, string>,
): Promise<ChildProcessWithoutNullStreams> {
  const proc = spawn(process.execPath, [CLI, role], { env: { ...env, ...extra } });
  collect(proc);
  return untilStarted(proc, role, 60_000);
}

async function statusOf(url: string): Promise<number> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Delivers like HubSpot: a 5xx or no answer is retried (HubSpot retries failed deliveries for 24 h). */
async function deliver(body: string): Promise<boolean> {
  const url = `http://127.0.0.1:${servePort}/webhooks/hubspot`;
  for (let attempt = 0; attempt < 20; attempt++) {
    const status = await postHubSpotWebhook(url, hs.clientSecret, body);
    if (status >= 200 && status < 300) return true;
    if (status >= 400 && status < 500) return false;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  return false;
}

function refresh(accountId: string, agent?: Agent): Promise<number | string> {
  const body = JSON.stringify({ crm: 'hubspot', accountId });
  return new Promise((resolve) => {
    const req = request(
      `http://127.0.0.1:${servePort}/api/refresh`,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', (e) => resolve((e as NodeJS.ErrnoException).code ?? e.message));
    req.end(body);
  });
}

describe.skipIf(!ON_CLUSTER_RUN || !HAS_SERVER)('serve and 3 workers on a cluster whose seed dies', () => {
  beforeAll(async () => {
    cluster = await privateCluster();
    seed = await cluster.masterOf(`${PREFIX}:probe`, cluster.ports[0] ?? 0);
    [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({ rateLimits: false })]);
    const database = await concurrentDatabase();
    databaseUrl = database.env.DATABASE_URL ?? '';
    servePort = await freePort();
    env = cliEnv(bi, hs, PREFIX, {
      ...database.env,
      // One node, as in the finding: the client must learn the others itself.
      REDIS_URL: `redis://127.0.0.1:${seed}?cluster=true`,
      LOG_LEVEL: 'info',
      API_KEYS: API_KEY,
      PORT: String(servePort),
      WORKER_CONCURRENCY: '5',
      WRITE_BATCH_WAIT_MS: '50',
    });
    const setup = spawn(process.execPath, [CLI, 'setup'], { env });
    let said = '';
    setup.stderr.on('data', (c: Buffer) => {
      said = (said + c.toString()).slice(-2_000);
    });
    setup.stdout.resume();
    expect(await new Promise<number | null>((r) => setup.once('exit', r)), said).toBe(0);
    serve = await start('serve', {});
    for (let i = 0; i < 3; i++) {
      const health = await freePort();
      workers.push({ proc: await start('worker', { METRICS_LISTEN: `127.0.0.1:${health}` }), health });
    }
  }, 180_000);

  afterAll(async () => {
    for (const p of [serve, ...workers.map((w) => w.proc)])
      if (p && p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    await Promise.all([bi?.close(), hs?.close()]);
    await cluster?.remove();
  });

  it('loses nothing and resumes alone when the seed master is killed', async () => {
    const buyers = distinctBuyers(bi, ACCOUNTS);
    const accounts = new Map<string, SandboxBuyer>();
    for (const b of buyers) accounts.set(hs.store.createCompany(companyFor(b), { source: 'CRM_UI' }).id, b);
    const ids = [...accounts.keys()];
    const enriched = () =>
      ids.filter((id) => hs.store.get('companies', id)?.values.get(P.status) === 'enriched').length;

    const delivered: Promise<boolean>[] = [];
    let failoverAt = 0;
    for (const [i, id] of ids.entries()) {
      delivered.push(deliver(JSON.stringify([creationEvent(hs, id, 1_000 + i)])));
      if (i === 40) {
        // kill -9, as in the finding: every connection to the seed is refused at once, so each client
        // reconnects from its startup nodes while the replica is still being promoted.
        await cluster.kill(seed);
        const survivor = cluster.ports.find((p) => p !== seed) ?? 0;
        await waitFor(
          "the seed's replica is promoted",
          async () => (await cluster.masterOf(`${PREFIX}:probe`, survivor).catch(() => seed)) !== seed,
          30_000,
          200,
        );
        failoverAt = Date.now();
      }
      await new Promise((r) => setTimeout(r, 200)); // 5 webhooks a second
    }
    expect((await Promise.all(delivered)).filter((ok) => !ok)).toEqual([]);

    // Work resumed: accounts are enriched after the failover (most were delivered after it).
    const resumed = await waitFor(
      'an account enriched after the failover',
      () => enriched() > 41 && Date.now(),
      30_000,
      100,
    );
    expect(resumed - failoverAt).toBeLessThan(30_000);
    await waitFor(`all ${ACCOUNTS} accounts enriched`, () => enriched() === ACCOUNTS, 120_000, 250);

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      // A job records its outcome right after its CRM write: the last ones may trail the CRM by a
      // moment, never for good.
      const outcomes = async () =>
        (
          await db.query<{ account_id: string; status: string }>(
            'select account_id, status from account_outcomes where crm = $1',
            ['hubspot'],
          )
        ).rows;
      const rows = await waitFor(
        `an outcome for each of the ${ACCOUNTS} accounts`,
        async () => {
          const found = await outcomes();
          return found.length >= ACCOUNTS && found;
        },
        30_000,
        250,
      ).catch(() => outcomes());
      const stored = new Map(rows.map((r) => [r.account_id, r.status]));
      for (const [id, buyer] of accounts) {
        const company = hs.store.get('companies', id);
        expect(company?.values.get(P.buyerId), buyer.name).toBe(buyer.id);
        expect(stored.get(id), `PostgreSQL's outcome of ${buyer.name}`).toBe(company?.values.get(P.status));
      }
    } finally {
      await db.end();
    }

    for (const w of workers) expect(await statusOf(`http://127.0.0.1:${w.health}/healthz`)).toBe(200);
    expect(await statusOf(`http://127.0.0.1:${servePort}/readyz`)).toBe(200);
    const notJson = printed.filter((line) => {
      try {
        return typeof JSON.parse(line) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson.slice(0, 5)).toEqual([]);
  }, 300_000);

  it('declares the schedules again after the cluster loses its data', async () => {
    // The seed is dead since the first test: this client starts from a node that is alive.
    const alive = cluster.ports.find((p) => p !== seed) ?? 0;
    const redis = createRedis(`redis://127.0.0.1:${alive}?cluster=true`, 'producer');
    const queue = new Queue(MAINTENANCE_QUEUE, { connection: redis, prefix: PREFIX });
    try {
      const scheduled = async () =>
        (await queue.getJobSchedulers()).some((s) => s.key === PENDING_SWEEP_SCHEDULE.id);
      expect(await scheduled()).toBe(true);
      for (const port of cluster.ports)
        if ((await cluster.cli(port, 'role').catch(() => '')).startsWith('master'))
          await cluster.cli(port, 'flushall');
      expect(await scheduled()).toBe(false);
      await waitFor('the pending sweep is scheduled again', scheduled, 30_000, 500);
    } finally {
      await queue.close();
      redis.disconnect();
    }
  }, 90_000);

  it('answers the 40 requests in flight when serve is stopped, then exits 0', async () => {
    hs.faults.settings.latencyMs = 1_500; // each refresh waits on a CRM read
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const ids = hs.store.companies().map((c) => c.id);
    const answers = Array.from({ length: 40 }, (_, i) =>
      refresh(ids[i % ids.length] ?? '1', i < 20 ? agent : undefined),
    );
    await new Promise((r) => setTimeout(r, 400));
    const exited = new Promise<number | null>((r) => serve.once('exit', (code) => r(code)));
    serve.kill('SIGTERM');
    const statuses = await Promise.all(answers);
    hs.faults.settings.latencyMs = 0;
    expect(statuses.filter((s) => typeof s !== 'number' || s >= 500)).toEqual([]);
    expect(await exited).toBe(0);
    expect(printed.some((l) => l.includes('"msg":"draining"'))).toBe(true);
    agent.destroy();
  }, 60_000);
});
