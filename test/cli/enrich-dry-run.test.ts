// `buyer-intel-sync enrich --dry-run` in process (runCliInProcess) against the sandboxes: prints the plan,
// writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { cliDatabase, runCliInProcess, sandboxCliEnv } from '../helpers/cli.ts';
import { testPrefix } from '../helpers/redis.ts';

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;

beforeAll(async () => {
  bi = await startSandbox();
  hs = await startHubSpotSandbox({});
});
afterAll(() => Promise.all([bi.close(), hs.close()]));

const cli = runCliInProcess;

const sandboxEnv = async () => ({
  ...sandboxCliEnv(bi, hs),
  ...(await cliDatabase()).env,
  REDIS_PREFIX: testPrefix('test-cli-dry'),
});

describe('buyer-intel-sync enrich --dry-run', () => {
  it('prints the match, each field old → new with its policy, and the notes; writes nothing', async () => {
    const id = hs.store.createCompany({ name: 'Travis County', state: 'TX' }, { source: 'CRM_UI' }).id;
    hs.stats.reset();
    const { code, stdout, stderr } = await cli(
      ['enrich', '--crm', 'hubspot', '--account', id, '--dry-run'],
      await sandboxEnv(),
    );
    expect(code, `stderr: ${stderr}`).toBe(0);
    expect(stdout).toContain(`DRY RUN — nothing written. Account ${id} "Travis County"`);
    expect(stdout).toContain('Status: enriched');
    const population = DEFAULT_MAPPING.fields.find((f) => f.attribute === 'Population')?.property ?? '';
    expect(stdout).toMatch(new RegExp(`│ ${population}\\s+│ write\\s+│ ours\\s+│ ∅ → \\d+\\s+│`));
    expect(stdout).toMatch(/Notes to create: \d+/);
    const writes =
      hs.stats.count('crm.companies.batchApi.update') + hs.stats.count('crm.objects.notes.batchApi.create');
    expect(writes).toBe(0);
    expect(hs.store.notesOf(id)).toEqual([]);
  });

  it('exits 2 with what to fix when --account is missing, and 1 listing every bad variable', async () => {
    const usage = await cli(['enrich', '--crm', 'hubspot'], await sandboxEnv());
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--account <id> is required');
    const config = await cli(['enrich', '--account', '1'], { HUBSPOT_PORTAL_ID: 'abc' });
    expect(config.code).toBe(1);
    for (const name of [
      'BUYER_INTEL_BASE_URL',
      'BUYER_INTEL_TOKEN',
      'HUBSPOT_ACCESS_TOKEN',
      'HUBSPOT_PORTAL_ID',
      'HUBSPOT_CLIENT_SECRET',
    ]) {
      expect(config.stderr).toContain(name);
    }
  });
});
