// CRM connections added at run time (several portals, several orgs), kept in Redis with every
// credential encrypted (AES-256-GCM, TOKEN_ENCRYPTION_KEY). One hash field per tenant; the field name
// is the record's encryption context, so a blob copied to another tenant does not decrypt. Each
// record is validated by its CRM's own schema (connectors/<crm>/tenants.ts).
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { TenantSession } from '../../connectors/descriptor.ts';
import { crmOf, isCrmKind } from '../../connectors/registry.ts';
import type { TokenCipher } from './cipher.ts';

export type TenantRecord = { crm: string } & Record<string, unknown>;

function supportOf(crm: string) {
  const tenants = isCrmKind(crm) ? crmOf(crm).tenants : undefined;
  if (!tenants) throw new Error(`${crm} connections cannot be stored as tenants`);
  return tenants;
}

/** The record checked by its CRM's schema; throws a ZodError naming the bad fields. */
export function parseTenant(value: unknown): TenantRecord {
  const crm = z.object({ crm: z.string().refine(isCrmKind, 'unknown CRM') }).parse(value).crm;
  return supportOf(crm).schema.parse(value) as TenantRecord;
}

/** The tenant's id in its CRM's canonical form (portal id, 15-character org id, …). */
export function tenantIdOf(record: TenantRecord): string {
  const descriptor = crmOf(record.crm);
  const id = supportOf(record.crm).idOf(record);
  return descriptor.tenantId(id) ?? id;
}

export class TenantStore {
  readonly #redis: Redis;
  readonly #key: string;
  readonly #cipher: TokenCipher;

  constructor(redis: Redis, prefix: string, cipher: TokenCipher) {
    this.#redis = redis;
    this.#key = `${prefix}:tenants`;
    this.#cipher = cipher;
  }

  /** Where a tenant's connector keeps its refreshed session (encrypted, bound to that key). */
  session(crm: string, tenant: string): TenantSession {
    const key = `${this.#key}:session:${crm}:${tenant}`;
    return { key, codec: this.#cipher.codec(key) };
  }

  async put(record: TenantRecord): Promise<void> {
    const parsed = parseTenant(record);
    const field = `${parsed.crm}:${tenantIdOf(parsed)}`;
    await this.#redis.hset(this.#key, field, this.#cipher.encrypt(JSON.stringify(parsed), field));
  }

  async remove(crm: string, tenant: string): Promise<boolean> {
    const id = (isCrmKind(crm) ? crmOf(crm).tenantId(tenant) : undefined) ?? tenant;
    const removed = await this.#redis.hdel(this.#key, `${crm}:${id}`);
    await this.#redis.del(this.session(crm, id).key);
    return removed === 1;
  }

  /** Every tenant; one that cannot be decrypted or read is reported, not returned. */
  async list(): Promise<{ tenants: TenantRecord[]; unreadable: { field: string; reason: string }[] }> {
    const all = await this.#redis.hgetall(this.#key);
    const tenants: TenantRecord[] = [];
    const unreadable: { field: string; reason: string }[] = [];
    for (const [field, blob] of Object.entries(all)) {
      try {
        tenants.push(parseTenant(JSON.parse(this.#cipher.decrypt(blob, field))));
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
