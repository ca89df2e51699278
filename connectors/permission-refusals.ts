// What a CRM refused for want of a permission (an OAuth scope, field access), per tenant, kept in
// Redis where `doctor` and the admin page read it: a token that lacks a scope is found by the first
// call that needs it, on any worker, and an operator sees which tenant lacks what without reading
// logs. Lossy by design: the next refused call writes it again; a day without one lets it expire, and
// a tenant installed again starts clean.
import type { Redis } from 'ioredis';

export interface PermissionRefusal {
  crm: string;
  tenant: string;
  /** What the CRM said is missing (any one would do). */
  missing: string[];
  /** The call that was refused. */
  operation: string;
  at: number;
}

const TTL_SECONDS = 86_400;
const key = (prefix: string, crm: string, tenant: string) => `${prefix}:crm-refusals:${crm}:${tenant}`;
const indexKey = (prefix: string) => `${prefix}:crm-refusals`;

export async function recordRefusal(redis: Redis, prefix: string, refusal: PermissionRefusal): Promise<void> {
  const k = key(prefix, refusal.crm, refusal.tenant);
  const value = JSON.stringify({ missing: refusal.missing, operation: refusal.operation, at: refusal.at });
  await redis
    .multi()
    .hset(k, refusal.missing.join(' | '), value)
    .expire(k, TTL_SECONDS)
    .sadd(indexKey(prefix), `${refusal.crm}:${refusal.tenant}`)
    .exec();
}

/** Forgets a tenant's refusals (it was installed again, with new grants). */
export async function clearRefusals(redis: Redis, prefix: string, crm: string, tenant: string) {
  await redis.del(key(prefix, crm, tenant));
}

/** Every tenant's refusals of the last day, newest first. */
export async function readRefusals(redis: Redis, prefix: string): Promise<PermissionRefusal[]> {
  const out: PermissionRefusal[] = [];
  for (const member of await redis.smembers(indexKey(prefix))) {
    const at = member.indexOf(':');
    const crm = member.slice(0, at);
    const tenant = member.slice(at + 1);
    const fields = await redis.hgetall(key(prefix, crm, tenant));
    if (!Object.keys(fields).length) {
      await redis.srem(indexKey(prefix), member);
      continue;
    }
    for (const raw of Object.values(fields)) {
      try {
        const r = JSON.parse(raw) as { missing: string[]; operation: string; at: number };
        out.push({ crm, tenant, missing: r.missing, operation: r.operation, at: r.at });
      } catch {
        // A value written by another version: the next refusal writes it again.
      }
    }
  }
  return out.sort((a, b) => b.at - a.at);
}
