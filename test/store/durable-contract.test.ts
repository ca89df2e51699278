// What used to live only in Redis, on both databases: CRM connections (encrypted blobs) and each
// digest's state — the same statements, the same answers on the embedded PGlite and a real PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repositories, Store } from '../../src/store/store.ts';
import { mustRunEverywhere, VARIANTS } from '../helpers/databases.ts';

for (const variant of VARIANTS) {
  if (variant.unavailable) {
    if (mustRunEverywhere)
      it(`durable state on ${variant.name}`, () => {
        throw new Error(`CI must run the store's tests on ${variant.name}: ${variant.unavailable}`);
      });
    else it.skip(`durable state on ${variant.name} — skipped: ${variant.unavailable}`, () => {});
    continue;
  }

  describe(`durable state on ${variant.name}`, () => {
    let store: Store;
    let repos: Repositories;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      ({ store, drop } = await variant.fresh());
      await store.migrate();
      repos = await store.open();
    });
    afterAll(async () => {
      await drop?.();
    });

    it('keeps one record per tenant: put replaces, an import adds only what is missing, remove says if it did', async () => {
      await repos.tenants.put({ crm: 'hubspot', tenant: '1001', record: 'v1.a' });
      await repos.tenants.put({ crm: 'hubspot', tenant: '1001', record: 'v1.b' });
      await repos.tenants.put({ crm: 'salesforce', tenant: '00D000000000001', record: 'v1.c' });
      const imported = await repos.tenants.putMissing([
        { crm: 'hubspot', tenant: '1001', record: 'v1.old' },
        { crm: 'hubspot', tenant: '1002', record: 'v1.d' },
      ]);
      expect(imported).toBe(1);
      expect(await repos.tenants.list()).toEqual([
        { crm: 'hubspot', tenant: '1001', record: 'v1.b' },
        { crm: 'hubspot', tenant: '1002', record: 'v1.d' },
        { crm: 'salesforce', tenant: '00D000000000001', record: 'v1.c' },
      ]);
      expect(await repos.tenants.remove('hubspot', '1002')).toBe(true);
      expect(await repos.tenants.remove('hubspot', '1002')).toBe(false);
      expect((await repos.tenants.list()).map((t) => t.tenant)).toEqual(['1001', '00D000000000001']);
    });

    it('sets and drops a digest’s fields in one change, per scope', async () => {
      expect(await repos.digests.get('org')).toEqual({});
      await repos.digests.update('org', { pendingPeriod: 'week-1', pendingEnd: 'E1', 'slack:week-1': '1' });
      await repos.digests.update('account:hubspot:1:c1', { watermark: 'W0' });
      await repos.digests.update('org', { period: 'week-1', watermark: 'E1' }, [
        'pendingPeriod',
        'pendingEnd',
        'slack:week-1',
        'absent',
      ]);
      expect(await repos.digests.get('org')).toEqual({ period: 'week-1', watermark: 'E1' });
      expect(await repos.digests.get('account:hubspot:1:c1')).toEqual({ watermark: 'W0' });
      expect(await repos.digests.putMissing([{ scope: 'org', state: { watermark: 'old' } }])).toBe(0);
      expect(await repos.digests.get('org')).toEqual({ period: 'week-1', watermark: 'E1' });
    });
  });
}
