// The CRMs this service speaks, one descriptor each. A new CRM is one folder under connectors/ and one
// line in BUILT_IN; the core reads the set of kinds from here and never names one.
import type { CrmDescriptor } from './descriptor.ts';
import { hubspot } from './hubspot/index.ts';
import { salesforce } from './salesforce/index.ts';

/**
 * Each descriptor is typed by its own config and tenant record; the core holds them erased, and
 * only ever hands a descriptor the config that descriptor itself read (see service/crm-connections).
 */
const erase = <C, T extends { crm: string }>(d: CrmDescriptor<C, T>) =>
  d as unknown as CrmDescriptor<unknown, { crm: string }>;

const BUILT_IN = [
  // One line per CRM (and its import above).
  erase(hubspot),
  erase(salesforce),
];

/** The CRMs of this process: the product's, plus any a test registered (registerCrm). */
export const CRMS: readonly CrmDescriptor<unknown, { crm: string }>[] = BUILT_IN;

/**
 * Adds a CRM beside the product's, in this process only. Only the tests call it (the in-memory CRM,
 * test/helpers/memory-crm.ts): a test double must never be listed to users, in `--crm` or `doctor`.
 * Registering before src/config/env.ts reads the environment lets the CRM's variables be read too.
 */
export function registerCrm<C, T extends { crm: string }>(descriptor: CrmDescriptor<C, T>): void {
  if (!isCrmKind(descriptor.kind)) BUILT_IN.push(erase(descriptor));
}

export const crmKinds = (): string[] => CRMS.map((d) => d.kind);

export const isCrmKind = (kind: unknown): kind is string => CRMS.some((d) => d.kind === kind);

/** The descriptor of `kind`; throws for a kind nobody registered. */
export function crmOf(kind: string): CrmDescriptor<unknown, { crm: string }> {
  const descriptor = CRMS.find((d) => d.kind === kind);
  if (!descriptor) throw new Error(`unknown CRM "${kind}": one of ${crmKinds().join(', ')}`);
  return descriptor;
}

/** The canonical form of an account id of `kind` (see CrmDescriptor.accountId); undefined: not one. */
export const canonicalAccountId = (kind: string, raw: string): string | undefined =>
  isCrmKind(kind) ? crmOf(kind).accountId(raw.trim()) : undefined;
