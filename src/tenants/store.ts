// CRM connections added at run time (several portals, several orgs), kept in the database (not in Redis:
// losing Redis must not disconnect a customer) with every credential encrypted (AES-256-GCM,
// TOKEN_ENCRYPTION_KEY). `<crm>:<tenant>` is the record's encryption context, so a blob copied to
// another tenant does not decrypt. Each record is validated by its CRM's own schema
// (connectors/<crm>/tenants.ts). Redis keeps only each tenant's refreshed access token, a cache.
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { TenantSession } from '../../connectors/descriptor.ts';
import { crmOf, isCrmKind } from '../../connectors/registry.ts';
import { importRedisTenants } from '../store/import-redis-durable.ts';
import type { TenantRows } from '../store/tenants.ts';
import { ourFieldsKey } from '../write/our-fields.ts';
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
  readonly #rows: () => Promise<TenantRows>;
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #key: string;
  readonly #cipher: TokenCipher;
  #imported: Promise<number> | undefined;

  /** `rows`: the database's table, once the schema is current (Store.open). */
  constructor(rows: () => Promise<TenantRows>, redis: Redis, prefix: string, cipher: TokenCipher) {
    this.#rows = rows;
    this.#redis = redis;
    this.#prefix = prefix;
    this.#key = `${prefix}:tenants`;
    this.#cipher = cipher;
  }

  /**
   * Where a tenant's connector keeps its refreshed session (encrypted, bound to that key): a cache; with
   * the record, a rotated refresh token is kept in it, in the database.
   */
  session(crm: string, tenant: string, record?: TenantRecord): TenantSession {
    const key = `${this.#key}:session:${crm}:${tenant}`;
    return {
      key,
      codec: this.#cipher.codec(key),
      ...(record
        ? { keepRefreshToken: (refreshToken: string) => this.put({ ...record, refreshToken }) }
        : {}),
    };
  }

  async put(record: TenantRecord): Promise<void> {
    const parsed = parseTenant(record);
    const tenant = tenantIdOf(parsed);
    const context = `${parsed.crm}:${tenant}`;
    await this.importFromRedis();
    const rows = await this.#rows();
    await rows.put({
      crm: parsed.crm,
      tenant,
      record: this.#cipher.encrypt(JSON.stringify(parsed), context),
    });
  }

  async remove(crm: string, tenant: string): Promise<boolean> {
    const id = (isCrmKind(crm) ? crmOf(crm).tenantId(tenant) : undefined) ?? tenant;
    await this.importFromRedis();
    const removed = await (await this.#rows()).remove(crm, id);
    // Added again later, its fields are checked again before its first write.
    await this.#redis.del(this.session(crm, id).key, ourFieldsKey(this.#prefix, crm, id));
    return removed;
  }

  /** Every tenant; one that cannot be decrypted or read is reported, not returned. */
  async list(): Promise<{ tenants: TenantRecord[]; unreadable: { field: string; reason: string }[] }> {
    await this.importFromRedis();
    const tenants: TenantRecord[] = [];
    const unreadable: { field: string; reason: string }[] = [];
    for (const row of await (await this.#rows()).list()) {
      const field = `${row.crm}:${row.tenant}`;
      try {
        tenants.push(parseTenant(JSON.parse(this.#cipher.decrypt(row.record, field))));
      } catch (err) {
        unreadable.push({
          field,
          reason: err instanceof z.ZodError ? 'invalid record' : (err as Error).message,
        });
      }
    }
    return { tenants, unreadable };
  }

  /**
   * Earlier versions kept the records in Redis: copies those the database does not have, and deletes
   * them from Redis (src/store/import-redis-durable.ts). Once per process (`migrate` runs it too).
   */
  importFromRedis(): Promise<number> {
    this.#imported ??= (async () =>
      (await importRedisTenants(this.#redis, this.#prefix, await this.#rows())).imported)();
    this.#imported.catch(() => {
      this.#imported = undefined;
    });
    return this.#imported;
  }
}
