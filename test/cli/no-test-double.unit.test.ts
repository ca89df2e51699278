// The in-memory CRM is a test double: the product (the real CLI, without the tests' registration)
// names only the CRMs a user can connect, in usage lines, in a refused `--crm` and in `doctor`.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const DOUBLE = /memory-crm|in-memory crm|MEMORY_CRM/i;
const env = {
  BUYER_INTEL_BASE_URL: 'http://127.0.0.1:9',
  BUYER_INTEL_TOKEN: 'token',
  HUBSPOT_ACCESS_TOKEN: 'pat-x',
  HUBSPOT_PORTAL_ID: '123',
  HUBSPOT_CLIENT_SECRET: 'secret',
};

describe('the CLI a user runs', () => {
  it('lists hubspot and salesforce for --crm, and refuses memory-crm as any unknown CRM', async () => {
    for (const command of ['setup', 'backfill', 'history', 'review']) {
      const help = await runCli([command, '--help'], env);
      expect(help.stdout + help.stderr).toContain('--crm');
      expect(help.stdout + help.stderr).toMatch(/hubspot\|salesforce/);
      expect({ command, out: DOUBLE.test(help.stdout + help.stderr) }).toEqual({ command, out: false });
    }
    const refused = await runCli(['setup', '--crm', 'memory-crm'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--crm must be hubspot or salesforce, got "memory-crm"');
  });

  it('reads no in-memory CRM from the environment, and doctor has no line for it', async () => {
    // Only the double's variable set: no CRM is configured, and the message names the real ones.
    const onlyDouble = await runCli(['doctor', '--timeout-ms', '2000'], {
      BUYER_INTEL_BASE_URL: 'http://127.0.0.1:9',
      BUYER_INTEL_TOKEN: 'token',
      MEMORY_CRM_WORKSPACE: 'demo',
    });
    expect(onlyDouble.code).toBe(1);
    expect(onlyDouble.stdout).toContain('no CRM configured');
    const doctor = await runCli(['doctor', '--timeout-ms', '2000'], env);
    expect(doctor.stdout).toMatch(/^\w+ +hubspot /m);
    expect(doctor.stdout).toMatch(/^SKIP +salesforce /m);
    expect(DOUBLE.test(onlyDouble.stdout + doctor.stdout + doctor.stderr)).toBe(false);
  });
});
