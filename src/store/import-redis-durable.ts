// Upgrading from a version that kept CRM connections and digest state only in Redis: copies them into
// the database (what the database already has is kept: a change made since is not undone), then deletes
// what was copied from Redis, so a tenant removed later is not brought back by a second import.
// Idempotent; `migrate` runs it, and the service runs the tenants' part before it first reads them.
import type { Redis } from 'ioredis';
import { nodesOf } from '../../queues/redis-url.ts';
import type { DigestStates } from './digest-state.ts';
import type { TenantRows } from './tenants.ts';

/** `<prefix>:tenants`: one hash field `<crm>:<tenant>` per connection, the encrypted record as is. */
export async function importRedisTenants(
  redis: Redis,
  prefix: string,
  rows: TenantRows,
): Promise<{ found: number; imported: number }> {
  const key = `${prefix}:tenants`;
  const legacy = await redis.hgetall(key);
  const fields = Object.keys(legacy);
  const imported = await rows.putMissing(
    fields.flatMap((field) => {
      const at = field.indexOf(':');
      const record = legacy[field];
      return at > 0 && record ? [{ crm: field.slice(0, at), tenant: field.slice(at + 1), record }] : [];
    }),
  );
  if (fields.length) await redis.hdel(key, ...fields);
  return { found: fields.length, imported };
}

/** `<prefix>:digest:org` and `<prefix>:digest:account:<crm>:<tenant>:<id>` hashes (not the run locks). */
export async function importRedisDigests(
  redis: Redis,
  prefix: string,
  digests: DigestStates,
): Promise<{ found: number; imported: number }> {
  const head = `${prefix}:digest:`;
  const keys = [`${head}org`];
  // Every master of a cluster (a client's SCAN asks one node).
  for (const node of nodesOf(redis))
    for await (const batch of node.scanStream({ match: `${head}account:*`, count: 500 }) as AsyncIterable<
      string[]
    >)
      keys.push(...batch);
  let found = 0;
  let imported = 0;
  for (let i = 0; i < keys.length; i += 200) {
    const chunk = keys.slice(i, i + 200);
    const read = redis.pipeline();
    for (const key of chunk) read.hgetall(key);
    const states = ((await read.exec()) ?? []).map(([, v]) => (v ?? {}) as Record<string, string>);
    const rows = chunk.flatMap((key, j) => {
      const state = states[j] ?? {};
      return Object.keys(state).length ? [{ scope: key.slice(head.length), state }] : [];
    });
    found += rows.length;
    imported += await digests.putMissing(rows);
    const done = rows.map((r) => `${head}${r.scope}`);
    if (done.length) await redis.del(...done);
  }
  return { found, imported };
}
