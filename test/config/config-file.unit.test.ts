// CONFIG_FILE: YAML settings validated like the environment (every problem listed, named by its key
// in the file), the environment winning over the file, a mapping path relative to the file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.ts';
import { loadEnv } from '../../src/config/env.ts';

const base = {
  BUYER_INTEL_BASE_URL: 'http://127.0.0.1:1',
  BUYER_INTEL_TOKEN: 't',
  HUBSPOT_ACCESS_TOKEN: 'x',
  HUBSPOT_PORTAL_ID: '1',
  HUBSPOT_CLIENT_SECRET: 's',
};
const dir = mkdtempSync(join(tmpdir(), 'bis-config-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const problems = (env: Record<string, string>) => {
  try {
    loadEnv(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

describe('CONFIG_FILE', () => {
  it('applies the file, lets the environment win, and resolves the mapping next to the file', () => {
    const path = file(
      'ok.yaml',
      'mapping: ./mapping.yaml\nmatch:\n  acceptThreshold: 0.8\nworker:\n  concurrency: 7\n  backfillAccountsPerJob: 50\nschedules:\n  reenrich: off\n  digest:\n    perAccount: "0 8 * * 1"\n',
    );
    const env = loadEnv({ ...base, CONFIG_FILE: path, WORKER_CONCURRENCY: '3' });
    expect(env.MATCH_ACCEPT_THRESHOLD).toBe(0.8);
    expect(env.WORKER_CONCURRENCY).toBe(3);
    expect(env.BACKFILL_ACCOUNTS_PER_JOB).toBe(50);
    expect(env.MAPPING_FILE).toBe(join(dir, 'mapping.yaml'));
    expect(env.REENRICH_CRON).toBeUndefined();
    expect(env.digest.perAccount?.pattern).toBe('0 8 * * 1');
  });

  it('lists every bad value by its key in the file, and unknown keys', () => {
    const path = file(
      'bad.yaml',
      'match:\n  acceptThreshold: 2\nworker:\n  concurrency: lots\nsignals:\n  colour: blue\n',
    );
    const found = problems({ ...base, CONFIG_FILE: path });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^MATCH_ACCEPT_THRESHOLD \(match\.acceptThreshold in CONFIG_FILE\) must be a number from 0 to 1/,
        ),
        expect.stringMatching(
          /^WORKER_CONCURRENCY \(worker\.concurrency in CONFIG_FILE\) must be a whole number/,
        ),
        expect.stringMatching(/unknown key signals\.colour/),
      ]),
    );
  });

  it('points at the line of a YAML syntax error, and names a missing file', () => {
    const path = file('broken.yaml', 'match:\n  acceptThreshold: 0.8\n worker: [\n');
    expect(problems({ ...base, CONFIG_FILE: path }).join('\n')).toMatch(/broken\.yaml line \d+/);
    expect(problems({ ...base, CONFIG_FILE: join(dir, 'missing.yaml') })).toEqual([
      expect.stringMatching(/missing\.yaml cannot be read: ENOENT/),
    ]);
  });
});
