// `buyer-intel-sync backfill` as a real process against the HubSpot emulator with 2,500 companies:
// the estimate, a run killed midway (SIGKILL) and resumed, and every account queued exactly once.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrmConnector } from '../../connectors/types.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type BackfillState, backfillStateKey } from '../../src/backfill/backfill.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { CLI_PATH as CLI, runCli, sandboxCliEnv } from '../helpers/cli.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-backfill-${randomUUID().slice(0, 8)}`;
const ACCOUNTS = 2_500;

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let redis: Redis;
let queue: Queue;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({})]);
  for (let i = 1; i <= ACCOUNTS; i++)
    hs.store.createCompany({ name: `Backfill Town ${i}`, state: i % 2 ? 'TX' : 'OH' }, { source: 'CRM_UI' });
  redis = new Redis(REDIS_URL);
  queue = new Queue('enrich', { connection: redis, prefix });
});
afterAll(async () => {
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await Promise.all([bi.close(), hs.close()]);
});

const env = () => ({
  PATH: process.env.PATH ?? '',
  REDIS_URL,
  REDIS_PREFIX: prefix,
  ...sandboxCliEnv(bi, hs),
});

const cli = (args: string[]) => runCli(args, env());

const stateKey = () =>
  backfillStateKey(prefix, { kind: 'hubspot', tenant: String(hs.portalId) } as CrmConnector, []);

describe('buyer-intel-sync backfill', () => {
  it('prints the estimate and queues nothing with --dry-run; refuses a bad filter with exit 2', async () => {
    const dry = await cli(['backfill', '--crm', 'hubspot', '--dry-run', '--filter', 'state=TX']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`${ACCOUNTS / 2} accounts, ~${(ACCOUNTS / 2) * 3} Buyer Intelligence calls`);
    expect(await queue.count()).toBe(0);
    const bad = await cli(['backfill', '--crm', 'hubspot', '--filter', 'state~TX']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--filter');
  });

  it('resumes after being killed midway and queues every account exactly once, at backfill priority', async () => {
    hs.faults.settings.latencyMs = 40; // slow pages, so the kill lands midway
    const child = spawn(process.execPath, [CLI, 'backfill', '--crm', 'hubspot'], {
      env: env(),
      stdio: 'ignore',
    });
    const deadline = Date.now() + 30_000;
    let killedAt: BackfillState | null = null;
    while (Date.now() < deadline) {
      const raw = await redis.get(stateKey());
      const state = raw ? (JSON.parse(raw) as BackfillState) : null;
      if (state && state.enqueued >= 500) {
        child.kill('SIGKILL');
        killedAt = state;
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => child.once('exit', r));
    expect(killedAt?.done).toBe(false);
    hs.faults.settings.latencyMs = 0;

    const resumed = await cli(['backfill', '--crm', 'hubspot']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('Resuming backfill');
    expect(resumed.stdout).toContain(`Queued ${ACCOUNTS} accounts`);

    const jobs = await queue.getJobs(['prioritized', 'waiting']);
    const ids = jobs.map((j) => j.data.accountId as string);
    expect(ids).toHaveLength(ACCOUNTS);
    expect(new Set(ids).size).toBe(ACCOUNTS);
    expect(new Set(jobs.map((j) => j.opts.priority))).toEqual(new Set([50]));
  }, 60_000);
});
