// Which OAuth scopes each emulated CRM operation needs, as the `security` sections of HubSpot's
// published documents say (test/fixtures/reference/hubspot-openapi/*.json; each section lists
// alternatives, any one of which is enough). A call whose token holds none of a need's alternatives
// answers HubSpot's 403 MISSING_SCOPES (errors.ts). test/sandbox/hubspot-scopes.unit.test.ts checks every
// alternative accepted here against the documents, so the emulator never admits what they do not.
//
// Where the documents are broader than one object type, the rule is narrowed to the type in the path:
// the properties and associations documents list every object type's scopes for `{objectType}`, and
// only that type's can be what HubSpot checks. An association needs a scope of each of its two object
// types: the document lists both sides' scopes and says nothing of pairs, so the stricter reading.
import type { ObjectType } from './object-types.ts';

/** One requirement: the token must hold at least one of these scopes. */
export type Need = readonly string[];

interface Family {
  read: readonly string[];
  write: readonly string[];
  /** Reading the type's property definitions (properties-v3.json, GET). */
  schemaRead: readonly string[];
  /** Changing them (properties-v3.json, POST/PATCH/DELETE). */
  schemaWrite: readonly string[];
}

// companies-v3.json: reads (GET, batch/read, search) need .read, every other operation .write.
// notes-v3.json and tasks-v3.json: the same with the contacts scopes (engagements live under them).
const FAMILIES: Record<ObjectType, Family> = {
  companies: {
    read: ['crm.objects.companies.read'],
    write: ['crm.objects.companies.write'],
    schemaRead: ['crm.schemas.companies.read', 'crm.objects.companies.read', 'crm.objects.companies.write'],
    schemaWrite: ['crm.schemas.companies.write'],
  },
  notes: {
    read: ['crm.objects.contacts.read'],
    write: ['crm.objects.contacts.write'],
    schemaRead: ['crm.schemas.notes.read', 'crm.objects.notes.read', 'crm.objects.contacts.read'],
    schemaWrite: ['crm.schemas.contacts.write'],
  },
  tasks: {
    read: ['crm.objects.contacts.read'],
    write: ['crm.objects.contacts.write'],
    schemaRead: ['crm.schemas.tasks.read', 'crm.objects.tasks.read', 'crm.objects.contacts.read'],
    schemaWrite: ['crm.schemas.contacts.write'],
  },
};

const isType = (t: unknown): t is ObjectType => typeof t === 'string' && Object.hasOwn(FAMILIES, t);
const family = (t: unknown): Family | undefined => (isType(t) ? FAMILIES[t] : undefined);
const either = (f: Family): Need => [...f.read, ...f.write];

/** owners-v3.json: `automation` or `crm.objects.owners.read`. */
const OWNERS: Need = ['crm.objects.owners.read', 'automation'];

/**
 * The needs of one call: method, the Express route it matched, and its path parameters. An object
 * type the emulator does not know needs nothing here (the handler answers its own 400 for it).
 */
export function scopeNeeds(method: string, route: string, params: Record<string, unknown>): Need[] {
  const m = method.toLowerCase();
  if (route.startsWith('/crm/v3/owners')) return [OWNERS];
  // hubspot-account-info-v3.json (transcribed from the API reference's "Get account details"): `oauth`.
  if (route === '/account-info/v3/details') return [['oauth']];
  const object = /^\/crm\/v3\/objects\/([a-z]+)(\/.*)?$/.exec(route);
  if (object) {
    const f = family(object[1]);
    if (!f) return [];
    const rest = object[2] ?? '';
    const reads = m === 'get' || rest === '/batch/read' || rest === '/search';
    return [reads ? f.read : f.write];
  }
  if (route.startsWith('/crm/v3/properties/')) {
    const f = family(params.objectType);
    if (!f) return [];
    const reads = m === 'get' || route.endsWith('/batch/read');
    return [reads ? f.schemaRead : f.schemaWrite];
  }
  if (route.startsWith('/crm/v4/')) {
    const from = family(params.objectType ?? params.fromObjectType);
    const to = family(params.toObjectType);
    return [from, to].filter((f): f is Family => f !== undefined).map(either);
  }
  return [];
}

/** The needs a token's scopes leave unmet (empty: the call may go ahead). */
export function unmetNeeds(needs: readonly Need[], granted: ReadonlySet<string>): Need[] {
  return needs.filter((need) => !need.some((scope) => granted.has(scope)));
}

/**
 * Every scope the product's full feature set needs: the sandbox's private app and its OAuth app grant
 * these unless told otherwise (a real portal grants what the app asked for; see docs/crm-setup.md).
 */
export const ALL_PRODUCT_SCOPES: readonly string[] = [
  'crm.objects.companies.read',
  'crm.objects.companies.write',
  'crm.schemas.companies.read',
  'crm.schemas.companies.write',
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.owners.read',
];
