// Every HubSpot call the connector makes has its scope in the table (connectors/hubspot/scopes.ts),
// the install asks for what the enabled features need and nothing more, and a token without a scope
// is refused by the emulator with HubSpot's 403 MISSING_SCOPES: the connector reports it as a
// permanent failure naming the scope (not retried), and keeps it in Redis where doctor reads it.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_CRM_FEATURES, type CrmFeatures } from '../../connectors/descriptor.ts';
import { hubspotConnection } from '../../connectors/hubspot/connection.ts';
import {
  HUBSPOT_CALL_SCOPES,
  hubspotInstallScopes,
  hubspotScopes,
  missingHubSpotScopes,
} from '../../connectors/hubspot/scopes.ts';
import { readRefusals } from '../../connectors/permission-refusals.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { crmFeatures } from '../../src/config/crm-features.ts';
import { refusalLines } from '../../src/doctor/crm-limits.ts';
import type { LogPort } from '../../src/shared/log.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-scopes-${randomUUID().slice(0, 8)}`;
const quiet: LogPort = { info: () => undefined, warn: () => undefined };
const NONE: CrmFeatures = { notes: false, tasks: false, owners: false };
const dir = new URL('../../connectors/hubspot/', import.meta.url);

describe('the scope table', () => {
  it('names every operation the connector calls', () => {
    const called = new Set<string>();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      for (const m of text.matchAll(/\.call\(\s*'([^']+)'/g)) called.add(m[1] ?? '');
      for (const m of text.matchAll(/operation: '(crm\.[^']+)'/g)) called.add(m[1] ?? '');
    }
    // The file scan sees them all: a call written another way would slip by, so the count is pinned.
    expect(called.size).toBeGreaterThanOrEqual(17);
    expect([...called].filter((op) => !HUBSPOT_CALL_SCOPES[op])).toEqual([]);
  });

  it('asks for exactly what the enabled features need', () => {
    expect(hubspotInstallScopes(NONE)).toEqual([
      'oauth',
      'crm.objects.companies.read',
      'crm.objects.companies.write',
      'crm.schemas.companies.read',
      'crm.schemas.companies.write',
    ]);
    const notes = hubspotScopes({ ...NONE, notes: true });
    expect(notes).toContain('crm.objects.contacts.write');
    expect(notes).not.toContain('crm.objects.owners.read');
    expect(hubspotScopes({ ...NONE, owners: true })).toContain('crm.objects.owners.read');
    expect(hubspotScopes(ALL_CRM_FEATURES)).toHaveLength(7);
  });

  it('turns features on from the configuration: owners only with follow-ups or the per-owner digest', () => {
    const base = { signals: { maxNotesPerRun: 5 }, followUps: { taskTypes: [] } };
    expect(crmFeatures(base)).toEqual({ notes: true, tasks: false, owners: false });
    expect(crmFeatures({ ...base, followUps: { taskTypes: ['RFP'] } })).toEqual(ALL_CRM_FEATURES);
    expect(crmFeatures({ signals: { maxNotesPerRun: 0 } })).toEqual(NONE);
  });

  it('is the table docs/crm-setup.md gives users', () => {
    const docs = readFileSync(new URL('../../docs/crm-setup.md', import.meta.url), 'utf8');
    const section = docs.slice(docs.indexOf('### HubSpot: scopes each feature needs'));
    for (const scope of hubspotScopes(ALL_CRM_FEATURES)) expect(section).toContain(`\`${scope}\``);
  });

  it('says what each missing scope is needed for', () => {
    const granted = hubspotScopes(ALL_CRM_FEATURES).filter((s) => s !== 'crm.objects.owners.read');
    expect(missingHubSpotScopes(granted, ALL_CRM_FEATURES)).toEqual([
      { scope: 'crm.objects.owners.read', neededFor: 'company owners (follow-ups, the per-owner digest)' },
    ]);
    expect(missingHubSpotScopes(granted, { ...ALL_CRM_FEATURES, owners: false })).toEqual([]);
  });
});

describe('a token without a scope', () => {
  let hs: RunningHubSpotSandbox;
  let redis: Redis;
  beforeAll(async () => {
    // What an install with follow-ups off grants: no owners, no contacts (notes) scopes.
    hs = await startHubSpotSandbox({ auth: { privateAppScopes: hubspotScopes(NONE) } });
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await hs.close();
  });

  it('is refused by the emulator with HubSpot’s 403 MISSING_SCOPES body', async () => {
    const answer = await fetch(`${hs.url}/crm/v3/owners/?limit=1`, {
      headers: { authorization: `Bearer ${hs.accessToken}` },
    });
    expect(answer.status).toBe(403);
    expect(await answer.json()).toMatchObject({
      status: 'error',
      message: expect.stringContaining("hasn't been granted all required scopes"),
      correlationId: expect.any(String),
      errors: [
        {
          message: 'One or more of the following scopes are required.',
          context: { requiredScopes: ['crm.objects.owners.read', 'automation'] },
        },
      ],
      category: 'MISSING_SCOPES',
    });
    // Companies need only what the token holds.
    const companies = await fetch(`${hs.url}/crm/v3/objects/companies?limit=1`, {
      headers: { authorization: `Bearer ${hs.accessToken}` },
    });
    expect(companies.status).toBe(200);
  });

  it('fails the call permanently naming the scope, and is kept for doctor', async () => {
    const runtime = { redis, prefix, recordCall: () => undefined, log: quiet };
    const connector = hubspotConnection(
      { basePath: hs.url, clientSecret: 'unused' },
      { portalId: String(hs.portalId), accessToken: hs.accessToken },
      runtime,
    );
    const err = await connector.listOwners().catch((e: unknown) => e);
    expect(err).toMatchObject({
      permanent: true,
      status: 403,
      missingPermissions: ['crm.objects.owners.read', 'automation'],
      message: expect.stringContaining('the token lacks the scope crm.objects.owners.read'),
    });
    const company = hs.store.createCompany({ name: 'City of Austin' }, { source: 'CRM_UI' });
    await expect(
      connector.createNotes([
        {
          accountId: company.id,
          dedupeKey: 'k1',
          title: 'RFP',
          body: 'An RFP',
          occurredAt: '2026-11-30T00:00:00Z',
        },
      ]),
    ).rejects.toMatchObject({ missingPermissions: ['crm.objects.contacts.write'] });
    // The account details refused (no `oauth`): the links fall back, and no permission is said lacking.
    await connector.prepareRecordUrls?.();
    expect(hs.stats.count('accountInfo.details.get', 403)).toBe(1);

    const refusals = await readRefusals(redis, prefix);
    expect(refusals.map((r) => [r.tenant, r.missing[0], r.operation]).sort()).toEqual([
      [String(hs.portalId), 'crm.objects.contacts.write', 'crm.objects.notes.batchApi.create'],
      [String(hs.portalId), 'crm.objects.owners.read', 'crm.owners.ownersApi.getPage'],
    ]);
    const [line] = refusalLines(refusals);
    expect(line).toMatchObject({ name: `hubspot ${hs.portalId} permissions`, status: 'fail' });
    expect(line?.detail).toMatch(/lacks .*crm\.objects\.owners\.read/);
  });
});
