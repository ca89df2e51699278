// `buyer-intel-sync migrate` as an operator runs it on upgrade: the schema is brought up to date, the
// outcomes, CRM connections and digest state an earlier version kept only in Redis land in the database, and a second run changes
// nothing. On a shared PostgreSQL the service refuses to start until it has run. The runs go through
// the CLI's own `main` in this process (runCliInProcess) save two real ones: a worker refusing to start,
// and the first migrate on PostgreSQL, what an operator's upgrade runs as a process.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.ts';
import { TokenCipher } from '../../src/tenants/cipher.ts';
import { TenantStore } from '../../src/tenants/store.ts';
import { runCli, runCliInProcess } from '../helpers/cli.ts';
import { freshPostgresDatabase, itWithPostgres } from '../helpers/databases.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-migrate-${randomUUID().slice(0, 8)}`;
let redis: Redis;
let dir: string;
const cipher = new TokenCipher(randomBytes(32));
const tenant = { crm: 'hubspot', portalId: '1001', accessToken: 'at-1001', refreshToken: 'rt-1001' };

const enriched = {
  at: '2026-02-01T10:00:00.000Z',
  jobId: 'hubspot.1.c1.refresh.1',
  result: {
    account: { crm: 'hubspot', tenant: '1', accountId: 'c1', name: 'City of Austin' },
    status: 'enriched',
    match: {
      buyerId: 'b-austin',
      buyerName: 'City of Austin',
      confidence: 0.97,
      source: 'search',
      explanation: 'name and state match',
      candidates: [],
    },
    fields: [],
    written: {},
    notes: { created: [], alreadyPresent: 0, overCap: 0 },
    dryRun: false,
  },
};

beforeAll(async () => {
  redis = new Redis(REDIS_URL);
  dir = mkdtempSync(join(tmpdir(), 'bis-migrate-'));
  await redis.set(`${prefix}:history:hubspot|1|c1`, JSON.stringify(enriched));
  await redis.set(
    `${prefix}:history:salesforce|00D1|001X`,
    JSON.stringify({ at: '2026-02-02T10:00:00.000Z', error: 'INVALID_FIELD: BuyerIntel_Url__c' }),
  );
  await redis.set(`${prefix}:history:hubspot|1|bad`, 'not json');
  await redis.zadd(`${prefix}:history:recent`, 1, 'hubspot|1|c1');
  // A connection added with `tenants add` and two digests' state, as earlier versions kept them.
  await redis.hset(
    `${prefix}:tenants`,
    'hubspot:1001',
    cipher.encrypt(JSON.stringify(tenant), 'hubspot:1001'),
  );
  await redis.hset(`${prefix}:digest:org`, {
    watermark: '2026-02-02T12:00:00.000Z',
    period: 'week-2026-02-02',
  });
  await redis.hset(`${prefix}:digest:account:hubspot:1001:c1`, {
    watermark: '2026-02-02T12:00:00.000Z',
    pendingPeriod: 'week-2026-02-09',
    pendingEnd: '2026-02-09T12:00:00.000Z',
  });
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  rmSync(dir, { recursive: true, force: true });
});

describe('buyer-intel-sync migrate', () => {
  it('migrates the embedded database and imports the outcomes, tenants and digest state kept in Redis, once', async () => {
    const env = { REDIS_URL, REDIS_PREFIX: prefix, PGLITE_DIR: dir };
    const first = await runCliInProcess(['migrate'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'applied 18 migrations (0001_initial, 0002_duplicate_of, 0003_approvable_index, 0004_outcome_counts, 0005_outcomes_by_run, 0006_write_history, 0007_undo, 0008_durable_from_redis, 0009_undo_claim, 0010_pending_writes, 0011_pending_notes, 0012_follow_ups, 0013_note_recorded_index, 0014_learned_decisions, 0015_mapping_versions, 0016_mapping_document_json, 0017_dashboard_counters, 0018_field_summary)',
    );
    expect(first.stdout).toContain('3 found, 2 imported, 0 already in the database, 1 unreadable');
    expect(first.stdout).toContain(`tenants in Redis (${prefix}:tenants): 1 found, 1 imported`);
    expect(first.stdout).toContain(`digest state in Redis (${prefix}:digest:*): 2 found, 2 imported`);
    // Copied, then gone from Redis: a tenant removed later cannot come back from there.
    expect(await redis.exists(`${prefix}:tenants`, `${prefix}:digest:org`)).toBe(0);

    const again = await runCliInProcess(['migrate'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('schema up to date');
    expect(again.stdout).toContain('3 found, 0 imported, 2 already in the database, 1 unreadable');
    expect(again.stdout).toContain('tenants in Redis');
    expect(again.stdout).toContain(': 0 found, 0 imported');

    const store = new Store({ pgliteDir: dir });
    try {
      const { outcomes } = await store.open();
      expect(await outcomes.get({ crm: 'hubspot', tenant: '1', accountId: 'c1' })).toMatchObject({
        cohort: 'matched_by_name',
        buyerId: 'b-austin',
        confidence: 0.97,
        jobId: 'hubspot.1.c1.refresh.1',
        updatedAt: new Date(enriched.at),
      });
      expect(await outcomes.get({ crm: 'salesforce', tenant: '00D1', accountId: '001X' })).toMatchObject({
        cohort: 'error',
        error: 'INVALID_FIELD: BuyerIntel_Url__c',
      });
      // The record decrypts with the same key, as it did from Redis; the digests resume where they were.
      const tenants = new TenantStore(async () => (await store.open()).tenants, redis, prefix, cipher);
      expect(await tenants.list()).toEqual({ tenants: [tenant], unreadable: [] });
      const { digests } = await store.open();
      expect(await digests.get('org')).toEqual({
        watermark: '2026-02-02T12:00:00.000Z',
        period: 'week-2026-02-02',
      });
      expect(await digests.get('account:hubspot:1001:c1')).toMatchObject({
        pendingPeriod: 'week-2026-02-09',
      });
    } finally {
      await store.close();
    }
    // A new embedded database runs initdb in WebAssembly, then the file opens it twice more: 8–12 s on a
    // quiet 2-core machine, past 30 s with a second copy of the suite beside it (load 8).
  }, 120_000);

  it('says which variable is wrong, in one line per problem', async () => {
    const bad = await runCliInProcess(['migrate'], { DATABASE_URL: 'mysql://x' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('DATABASE_URL must be a postgres:// or postgresql:// URL');
  });

  itWithPostgres(
    'on PostgreSQL: the service refuses to start with a migration pending, and runs once migrated',
    async () => {
      const database = await freshPostgresDatabase({ migrated: false });
      try {
        const url = database?.url ?? '';
        const env = {
          REDIS_URL,
          REDIS_PREFIX: prefix,
          DATABASE_URL: url,
          BUYER_INTEL_TOKEN: 't'.repeat(24),
          BUYER_INTEL_BASE_URL: 'http://127.0.0.1:9',
          HUBSPOT_ACCESS_TOKEN: 'x'.repeat(24),
          HUBSPOT_PORTAL_ID: '1',
          HUBSPOT_CLIENT_SECRET: 's'.repeat(24),
          HUBSPOT_APP_ID: '1',
          PORT: '0',
        };
        const refused = await runCli(['worker'], env);
        expect(refused.code).toBe(1);
        expect(refused.stderr.trim().split('\n')).toHaveLength(1);
        expect(refused.stderr).toMatch(
          /pending migrations \(0001_initial, 0002_duplicate_of, 0003_approvable_index, 0004_outcome_counts, 0005_outcomes_by_run, 0006_write_history, 0007_undo, 0008_durable_from_redis, 0009_undo_claim, 0010_pending_writes, 0011_pending_notes, 0012_follow_ups, 0013_note_recorded_index, 0014_learned_decisions, 0015_mapping_versions, 0016_mapping_document_json, 0017_dashboard_counters, 0018_field_summary\): run `buyer-intel-sync migrate`/,
        );
        expect(refused.stderr).not.toContain(new URL(url).password || '\u0000');

        const migrated = await runCli(['migrate', '--skip-import'], env);
        expect(migrated.code).toBe(0);
        expect(migrated.stdout).toContain(
          'applied 18 migrations (0001_initial, 0002_duplicate_of, 0003_approvable_index, 0004_outcome_counts, 0005_outcomes_by_run, 0006_write_history, 0007_undo, 0008_durable_from_redis, 0009_undo_claim, 0010_pending_writes, 0011_pending_notes, 0012_follow_ups, 0013_note_recorded_index, 0014_learned_decisions, 0015_mapping_versions, 0016_mapping_document_json, 0017_dashboard_counters, 0018_field_summary)',
        );
        expect((await runCliInProcess(['migrate', '--skip-import'], env)).stdout).toContain(
          'schema up to date',
        );
      } finally {
        await database?.drop();
      }
    },
    60_000,
  );
});
