// What used to live only in Redis, on both databases: CRM connections (encrypted blobs) and each
// digest's state — the same statements, the same answers on the embedded PGlite and a real PostgreSQL.
import { expect, it } from 'vitest';

import { describeEachDatabase, migratedStore } from '../helpers/databases.ts';

describeEachDatabase('durable state', (variant) => {
  const db = migratedStore(variant);

  it('keeps one record per tenant: put replaces, an import adds only what is missing, remove says if it did', async () => {
    await db.repos.tenants.put({ crm: 'hubspot', tenant: '1001', record: 'v1.a' });
    await db.repos.tenants.put({ crm: 'hubspot', tenant: '1001', record: 'v1.b' });
    await db.repos.tenants.put({ crm: 'salesforce', tenant: '00D000000000001', record: 'v1.c' });
    const imported = await db.repos.tenants.putMissing([
      { crm: 'hubspot', tenant: '1001', record: 'v1.old' },
      { crm: 'hubspot', tenant: '1002', record: 'v1.d' },
    ]);
    expect(imported).toBe(1);
    expect(await db.repos.tenants.list()).toEqual([
      { crm: 'hubspot', tenant: '1001', record: 'v1.b' },
      { crm: 'hubspot', tenant: '1002', record: 'v1.d' },
      { crm: 'salesforce', tenant: '00D000000000001', record: 'v1.c' },
    ]);
    expect(await db.repos.tenants.remove('hubspot', '1002')).toBe(true);
    expect(await db.repos.tenants.remove('hubspot', '1002')).toBe(false);
    expect((await db.repos.tenants.list()).map((t) => t.tenant)).toEqual(['1001', '00D000000000001']);
  });

  it('sets and drops a digest’s fields in one change, per scope', async () => {
    expect(await db.repos.digests.get('org')).toEqual({});
    await db.repos.digests.update('org', { pendingPeriod: 'week-1', pendingEnd: 'E1', 'slack:week-1': '1' });
    await db.repos.digests.update('account:hubspot:1:c1', { watermark: 'W0' });
    await db.repos.digests.update('org', { period: 'week-1', watermark: 'E1' }, [
      'pendingPeriod',
      'pendingEnd',
      'slack:week-1',
      'absent',
    ]);
    expect(await db.repos.digests.get('org')).toEqual({ period: 'week-1', watermark: 'E1' });
    expect(await db.repos.digests.get('account:hubspot:1:c1')).toEqual({ watermark: 'W0' });
    expect(await db.repos.digests.putMissing([{ scope: 'org', state: { watermark: 'old' } }])).toBe(0);
    expect(await db.repos.digests.get('org')).toEqual({ period: 'week-1', watermark: 'E1' });
  });
});
