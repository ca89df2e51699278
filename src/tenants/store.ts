// CRM connections added at run time (several HubSpot portals, several Salesforce orgs), kept in Redis
// with every credential encrypted (AES-256-GCM, TOKEN_ENCRYPTION_KEY). One hash field per tenant; the
// field name is the record's encryption context, so a blob copied to another tenant does not decrypt.
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { TokenCipher } from './cipher.ts';

const hubspotTenant = z.object({
  crm: z.literal('hubspot'),
  portalId: z.string().regex(/^\d+$/, 'must be the numeric portal id'),
  accessToken: z.string().min(1),
  /** OAuth installs: refreshed under a lock when the access token expires. Private apps have none. */
  refreshToken: z.string().min(1).optional(),
});
const salesforceTenant = z.object({
  crm: z.literal('salesforce'),
  orgId: z.string().regex(/^00D[a-zA-Z0-9]{12}(?:[a-zA-Z0-9]{3})?$/, 'must be the org id (00D…)'),
  instanceUrl: z.url({ protocol: /^https?$/ }),
  refreshToken: z.string().min(1),
  accessToken: z.string().min(1).optional(),
});
export const tenantSchema = z.discriminatedUnion('crm', [hubspotTenant, salesforceTenant]);
export type TenantRecord = z.output<typeof tenantSchema>;
export type HubSpotTenant = z.output<typeof hubspotTenant>;

export const tenantIdOf = (t: TenantRecord): string =>
  t.crm === 'hubspot' ? t.portalId : t.orgId.slice(0, 15);

export class TenantStore {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #cipher: TokenCipher;

  constructor(redis: Redis, prefix: string, cipher: TokenCipher) {
    this.#redis = redis;
    this.#key = `${prefix}:tenants`;
    this.#cipher = cipher;
  }

  /** The Redis key under which a tenant's refreshed session is kept (encrypted too). */
  sessionKey(crm: string, tenant: string): string {
    return `${this.#key}:session:${crm}:${tenant}`;
  }

  async put(record: TenantRecord): Promise<void> {
    const parsed = tenantSchema.parse(record);
    const field = `${parsed.crm}:${tenantIdOf(parsed)}`;
    await this.#redis.hset(this.#key, field, this.#cipher.encrypt(JSON.stringify(parsed), field));
  }

  async remove(crm: string, tenant: string): Promise<boolean> {
    const id = crm === 'salesforce' ? tenant.slice(0, 15) : tenant;
    const removed = await this.#redis.hdel(this.#key, `${crm}:${id}`);
    await this.#redis.del(this.sessionKey(crm, id));
    return removed === 1;
  }

  /** Every tenant; one that cannot be decrypted or read is reported, not returned. */
  async list(): Promise<{ tenants: TenantRecord[]; unreadable: { field: string; reason: string }[] }> {
    const all = await this.#redis.hgetall(this.#key);
    const tenants: TenantRecord[] = [];
    const unreadable: { field: string; reason: string }[] = [];
    for (const [field, blob] of Object.entries(all)) {
      try {
        tenants.push(tenantSchema.parse(JSON.parse(this.#cipher.decrypt(blob, field))));
      } catch (err) {
        unreadable.push({
          field,
          reason: err instanceof z.ZodError ? 'invalid record' : (err as Error).message,
        });
      }
    }
    return { tenants, unreadable };
  }
}
