// `buyer-intel-sync digest --now` in process (runCliInProcess) on the sandboxes: one digest note on a matched
// account with new signals, none on a second run in the same period; usage errors exit 2.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { runCliInProcess, sandboxCliEnv } from '../helpers/cli.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-cli-digest-${randomUUID().slice(0, 8)}`;
let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox()]);
  service = await createTestService(
    sandboxSettings(
      { buyerIntel: bi, hubspot: hs },
      { redisUrl: REDIS_URL, prefix },
      { signals: { maxNotesPerRun: 0 } },
    ),
  );
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
});
afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

const cli = (args: string[], extra: Record<string, string> = {}) =>
  runCliInProcess(args, {
    REDIS_PREFIX: prefix,
    ...sandboxCliEnv(bi, hs),
    DIGEST_PER_ACCOUNT_CRON: '0 8 * * 1',
    DIGEST_LOOKBACK_DAYS: '60',
    ...extra,
  });

describe('buyer-intel-sync digest --now', () => {
  it('writes one digest note per matched account with new signals, and nothing the second time', async () => {
    const austin = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    const result = await service.enrich({ crm: 'hubspot', tenant: String(hs.portalId), accountId: austin });
    expect(result.status).toBe('enriched');
    expect(hs.store.notesOf(austin)).toHaveLength(0); // signal notes off: only the digest writes

    const first = await cli(['digest', '--now', '--kind', 'per-account']);
    expect(first.code, `stderr: ${first.stderr} stdout: ${first.stdout}`).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      kind: 'per-account',
      counts: { written: 1, failed: 0 },
    });
    expect(hs.store.notesOf(austin)).toHaveLength(1);

    const second = await cli(['digest', '--now']);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout).counts.written).toBe(0);
    expect(hs.store.notesOf(austin)).toHaveLength(1);
  }, 90_000);

  it('exits 2 with what to fix: no --now, an unknown kind, a kind not configured', async () => {
    expect((await cli(['digest'])).code).toBe(2);
    const kind = await cli(['digest', '--now', '--kind', 'weekly']);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain('--kind');
    const org = await cli(['digest', '--now', '--kind', 'org-wide']);
    expect(org.code).toBe(2);
    expect(org.stderr).toContain('DIGEST_ORG_CRON');
  });
});
