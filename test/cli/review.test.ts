// `buyer-intel-sync review` in process (runCliInProcess) against the file's database and the sandboxes:
// a list prints the counts and a page; approve without --yes only previews and changes nothing.

import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { createEnrichQueue } from '../../queues/enrich-queue.ts';
import { Store } from '../../src/store/store.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { cliDatabase, runCliInProcess, sandboxCliEnv } from '../helpers/cli.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-cli-review-${randomUUID().slice(0, 8)}`;
let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
const env = () => ({ ...sandboxCliEnv(bi, hs), REDIS_PREFIX: prefix });

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({})]);
  const store = new Store((await cliDatabase()).settings);
  const { outcomes } = await store.open();
  for (const [i, score] of [0.9, 0.8, 0.4].entries()) {
    await outcomes.record({
      crm: 'hubspot',
      tenant: String(hs.portalId),
      accountId: String(100 + i),
      accountName: `Springfield ${i}`,
      state: null,
      status: 'needs_review',
      matchedBy: null,
      buyerId: null,
      buyerName: null,
      buyerType: null,
      confidence: score,
      reason: 'Needs review: several candidates',
      candidates: [
        { buyerId: `b${i}`, name: `City of Springfield ${i}`, stateCode: 'IL', type: 'City', score },
      ],
      detail: {
        source: null,
        fields: [],
        written: {},
        notes: { created: [], alreadyPresent: 0, overCap: 0 },
      },
    });
  }
  await store.close();
}, 60_000);

afterAll(async () => {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await Promise.all([bi?.close(), hs?.close()]);
});

describe('buyer-intel-sync review', () => {
  it('lists the counts and a page of a cohort', async () => {
    const r = await runCliInProcess(
      ['review', 'list', '--cohort', 'needs_review', '--crm', 'hubspot'],
      env(),
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/│ needs_review\s+│\s+3 │/);
    expect(r.stdout).toContain('Springfield 0');
  }, 60_000);

  it('approve without --yes prints the preview and changes nothing', async () => {
    const r = await runCliInProcess(['review', 'approve', '--floor', '0.7', '--crm', 'hubspot'], env());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('approve 2 accounts? run again with --yes');
    const queue = createEnrichQueue(new Redis(REDIS_URL, { maxRetriesPerRequest: null }), { prefix });
    expect(await queue.count()).toBe(0);
    await queue.close();
    const store = new Store((await cliDatabase()).settings);
    const { outcomes, decisions } = await store.open();
    expect(await outcomes.counts()).toMatchObject({ needs_review: 3 });
    expect(
      await decisions.forAccount({ crm: 'hubspot', tenant: String(hs.portalId), accountId: '100' }),
    ).toEqual([]);
    await store.close();
  }, 60_000);

  it('refuses a bad floor or account id with a usage error', async () => {
    const floor = await runCliInProcess(['review', 'approve', '--floor', 'lots'], env());
    expect(floor.code).toBe(2);
    const account = await runCliInProcess(
      ['review', 'reject', '--crm', 'hubspot', '--account', 'a b', '--reason', 'x'],
      env(),
    );
    expect(account.code).toBe(2);
    expect(account.stderr).toContain('CRM record id');
  }, 60_000);
});
