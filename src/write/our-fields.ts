// Our fields on one tenant: what `setup` creates (the mapped fields, our match provenance, the id fields
// that are ours), and the memory that a tenant has them for the current mapping, so that a job never
// writes to a tenant that lacks them.
//
// Where they get made, as a production install does it: when the tenant is added (`tenants add`, the
// HubSpot install's callback, whose consent grants the schema scope for this), which tells the person
// adding it at once what the CRM refused; and, for every stored tenant, before its first write when
// that did not happen or did not finish (an install whose field creation failed, a mapping that grew a
// field, Redis that lost the memory): once per tenant and mapping, not once per job. The environment's
// tenant is left to `setup`, which its operator runs — often with an admin's credentials the service's
// own integration user lacks (Salesforce's Metadata API needs Customize Application).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CrmConnector, CrmKind, EnsureFieldsResult, FieldDefinition } from '../../connectors/types.ts';
import { fieldDefinitions, idFieldDefinitions } from '../map/field-definitions.ts';
import type { Mapping } from '../map/mapping-schema.ts';
import { failureFacts, IntegrationError } from '../shared/errors.ts';

/** Every field of ours the tenant needs; throws naming an id field that clashes with a mapped one. */
export function ourFieldDefinitions(connector: CrmConnector, mapping: Mapping): FieldDefinition[] {
  const ids = idFieldDefinitions(connector.idFields ?? [], mapping);
  if (ids.problems.length) throw new Error(ids.problems.join('; '));
  return [...fieldDefinitions(mapping), ...ids.definitions];
}

/** Which fields: a mapping that gains a field (or changes one's type) is a new set to make. */
function fingerprintOf(definitions: readonly FieldDefinition[]): string {
  const canonical = [...definitions]
    .map((d) => `${d.name}:${d.type}:${(d.options ?? []).map((o) => o.value).join('|')}`)
    .sort();
  return createHash('sha256').update(canonical.join('\n')).digest('hex').slice(0, 16);
}

export interface OurFields {
  /** Creates what is missing now (setup, an added tenant) and remembers the tenant has them. */
  prepare(crm: CrmKind, tenant: string): Promise<EnsureFieldsResult>;
  /**
   * Before a job's first write on a tenant: resolves once the tenant has our fields (made now if they
   * are not known to be there). A refusal fails the write, so nothing of the job reaches the CRM.
   */
  ready(crm: CrmKind, tenant: string): Promise<void>;
  /** The tenant is gone (removed): added again, its fields are checked again. */
  forget(crm: CrmKind, tenant: string): Promise<void>;
}

export const ourFieldsKey = (prefix: string, crm: string, tenant: string) =>
  `${prefix}:fields-ready:${crm}:${tenant}`;

export function ourFields(options: {
  connectorFor: (crm: CrmKind, tenant: string) => CrmConnector;
  /**
   * The mapping in force (it changes from the admin console): `current` asks for it, `latest` is the
   * one the running job started with, so `ready` stays a memory look-up.
   */
  mapping: { current(): Promise<Mapping>; latest(): Mapping };
  /** Where the memory is kept, shared by every process of the install (a cache: losing it costs a check). */
  redis: Redis;
  prefix: string;
}): OurFields {
  // One check at a time per tenant in this process: a backfill chunk's accounts wait on the same one.
  const inFlight = new Map<string, Promise<void>>();
  const known = new Map<string, string>();

  const prepare = async (crm: CrmKind, tenant: string): Promise<EnsureFieldsResult> => {
    const connector = options.connectorFor(crm, tenant);
    const definitions = ourFieldDefinitions(connector, await options.mapping.current());
    const result = await connector.ensureFields(definitions);
    const fingerprint = fingerprintOf(definitions);
    const key = ourFieldsKey(options.prefix, crm, tenant);
    known.set(key, fingerprint);
    await options.redis.set(key, fingerprint);
    return result;
  };

  return {
    prepare,
    ready(crm, tenant) {
      const connector = options.connectorFor(crm, tenant);
      const key = ourFieldsKey(options.prefix, crm, tenant);
      const fingerprint = fingerprintOf(ourFieldDefinitions(connector, options.mapping.latest()));
      if (known.get(key) === fingerprint) return Promise.resolve();
      let check = inFlight.get(key);
      if (!check) {
        check = (async () => {
          if ((await options.redis.get(key)) === fingerprint) {
            known.set(key, fingerprint);
            return;
          }
          try {
            await prepare(crm, tenant);
          } catch (err) {
            const facts = failureFacts(err);
            const permanent = facts?.permanent ?? false;
            throw new IntegrationError(
              `our fields could not be created on ${crm} ${tenant}, so nothing was written: ${(err as Error).message}` +
                (permanent ? ` (once fixed: buyer-intel-sync setup --tenant ${tenant})` : ''),
              {
                permanent,
                ...(facts
                  ? { retryAfterMs: facts.retryAfterMs, limit: facts.limit, status: facts.status }
                  : {}),
                cause: err,
              },
            );
          }
        })().finally(() => inFlight.delete(key));
        inFlight.set(key, check);
      }
      return check;
    },
    async forget(crm, tenant) {
      const key = ourFieldsKey(options.prefix, crm, tenant);
      known.delete(key);
      await options.redis.del(key);
    },
  };
}
