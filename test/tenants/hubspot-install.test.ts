// The HubSpot app's install flow against the emulator's consent page and token endpoint: install →
// consent → callback stores the portal as a tenant (tokens encrypted) and the service serves it at
// once, with our fields made in it; a callback link used twice, or without state, is refused. The consent page asks for exactly
// the scopes the configuration's features need, and the portal's token can do what they need and no
// more (the emulator grants what was asked).

import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubSpotConfig } from '../../connectors/hubspot/config.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { TokenCipher } from '../../src/tenants/cipher.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-install-${randomUUID().slice(0, 8)}`;
const APP = { clientId: 'install-client-id', clientSecret: randomBytes(16).toString('hex'), appId: 777 };

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let base: string;
let redis: Redis;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox({ portalId: 3003, auth: APP })]);
  redis = new Redis(REDIS_URL);
  const settings = sandboxSettings({ buyerIntel: bi }, { redisUrl: REDIS_URL, prefix });
  const hubspot: HubSpotConfig = {
    app: {
      ...APP,
      appId: String(APP.appId),
      basePath: hs.url,
      authorizeUrl: `${hs.url}/__sandbox/oauth/authorize`,
    },
  };
  service = await createTestService({
    ...settings,
    crms: { hubspot },
    tenants: { cipher: new TokenCipher(randomBytes(32)) },
  });
  base = (await service.startHttp(0, '127.0.0.1')).url;
});
afterAll(async () => {
  redis?.disconnect();
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

const go = (url: string) => fetch(url, { redirect: 'manual' });

describe('HubSpot install flow', () => {
  it('connects the portal that consented, and refuses its callback a second time', async () => {
    const install = await go(`${base}/oauth/hubspot/install`);
    expect(install.status).toBe(302);
    const consent = new URL(install.headers.get('location') ?? '');
    expect(consent.origin + consent.pathname).toBe(`${hs.url}/__sandbox/oauth/authorize`);
    expect(consent.searchParams.get('client_id')).toBe(APP.clientId);
    expect(consent.searchParams.get('redirect_uri')).toBe(`${base}/oauth/hubspot/callback`);
    // Signal notes are on and follow-ups off: the notes' scopes, never the owners'.
    expect(consent.searchParams.get('scope')?.split(' ')).toEqual([
      'oauth',
      'crm.objects.companies.read',
      'crm.objects.companies.write',
      'crm.schemas.companies.read',
      'crm.schemas.companies.write',
      'crm.objects.contacts.write',
      'crm.objects.contacts.read',
    ]);

    const granted = await go(consent.toString());
    expect(granted.status).toBe(302);
    const callback = granted.headers.get('location') ?? '';
    const done = await go(callback);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Portal 3003 is connected');
    // Its fields are made at install, with the schema scope its consent granted: before its first job.
    expect(hs.store.property('companies', P.status)).toMatchObject({ groupName: 'buyer_intel' });

    const id = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
    const connector = service.connector('hubspot', '3003');
    expect((await connector.getAccount(id, [])).name).toBe('City of Austin');
    const [note] = await connector.createNotes([
      {
        accountId: id,
        dedupeKey: 'install-1',
        title: 'RFP',
        body: 'An RFP',
        occurredAt: '2026-11-30T00:00:00Z',
      },
    ]);
    expect(note).toMatchObject({ ok: true });

    await expect(connector.listOwners()).rejects.toMatchObject({
      permanent: true,
      missingPermissions: expect.arrayContaining(['crm.objects.owners.read']),
    });
    // Kept in the database, encrypted; nothing of it in Redis.
    const stored = await (await service.store.open()).tenants.list();
    expect(stored).toEqual([{ crm: 'hubspot', tenant: '3003', record: expect.stringMatching(/^v1\./) }]);
    expect(await redis.exists(`${prefix}:tenants`)).toBe(0);

    const again = await go(callback);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('expired or was already used');
    expect((await go(`${base}/oauth/hubspot/callback?code=x`)).status).toBe(400);
  });
});
