// Every HubSpot call the connector makes, the OAuth scope HubSpot documents for it, and the feature
// that makes the call. Sources: the `security` section of each operation in HubSpot's published
// documents (test/fixtures/reference/hubspot-openapi/: companies-v3, notes-v3, tasks-v3, properties-v3,
// associations-v4, owners-v3) and the API reference's "Scope requirements" (crm-facts.md). Where a
// document lists alternatives we ask for the narrowest one that covers the call. The install asks for
// exactly what the enabled features need, `doctor` compares a token with it, and
// test/connectors/hubspot-scopes.test.ts fails when a call the connector makes is missing here.
import type { CrmFeatures } from '../descriptor.ts';

/** `links`: the console's record links (the portal's UI domain); never asked or reported for itself. */
export type HubSpotFeature = 'accounts' | 'links' | keyof CrmFeatures;

export interface CallScopes {
  /** Every one of these is needed. */
  scopes: readonly string[];
  feature: HubSpotFeature;
  source: string;
}

const COMPANIES_READ = 'crm.objects.companies.read';
const COMPANIES_WRITE = 'crm.objects.companies.write';
const SCHEMAS_READ = 'crm.schemas.companies.read';
const SCHEMAS_WRITE = 'crm.schemas.companies.write';
// Notes and tasks are engagements: notes-v3.json and tasks-v3.json name the contacts scopes.
const ENGAGEMENTS_READ = 'crm.objects.contacts.read';
const ENGAGEMENTS_WRITE = 'crm.objects.contacts.write';
const OWNERS_READ = 'crm.objects.owners.read';

/** The operation names our calls report (client.ts `call`), each with what it needs. */
export const HUBSPOT_CALL_SCOPES: Readonly<Record<string, CallScopes>> = {
  'crm.companies.basicApi.getById': { scopes: [COMPANIES_READ], feature: 'accounts', source: 'companies-v3' },
  'crm.companies.basicApi.getPage': { scopes: [COMPANIES_READ], feature: 'accounts', source: 'companies-v3' },
  'crm.companies.batchApi.read': { scopes: [COMPANIES_READ], feature: 'accounts', source: 'companies-v3' },
  'crm.companies.batchApi.update': { scopes: [COMPANIES_WRITE], feature: 'accounts', source: 'companies-v3' },
  'crm.properties.coreApi.getAll': { scopes: [SCHEMAS_READ], feature: 'accounts', source: 'properties-v3' },
  'crm.properties.coreApi.create': { scopes: [SCHEMAS_WRITE], feature: 'accounts', source: 'properties-v3' },
  'crm.properties.groupsApi.create': {
    scopes: [SCHEMAS_WRITE],
    feature: 'accounts',
    source: 'properties-v3',
  },
  'crm.objects.notes.batchApi.create': {
    scopes: [ENGAGEMENTS_WRITE],
    feature: 'notes',
    source: 'notes-v3',
  },
  'crm.objects.notes.batchApi.read': { scopes: [ENGAGEMENTS_READ], feature: 'notes', source: 'notes-v3' },
  // doctor's probe of the notes scope (doctor.ts).
  'crm.objects.notes.basicApi.getPage': { scopes: [ENGAGEMENTS_READ], feature: 'notes', source: 'notes-v3' },
  'crm.objects.notes.batchApi.archive': {
    scopes: [ENGAGEMENTS_WRITE],
    feature: 'notes',
    source: 'notes-v3',
  },
  // An association is read from both of its object types; the document lists both sides' scopes.
  'crm.associations.v4.basicApi.getPage': {
    scopes: [COMPANIES_READ, ENGAGEMENTS_READ],
    feature: 'notes',
    source: 'associations-v4',
  },
  'crm.associations.v4.batchApi.getPage': {
    scopes: [COMPANIES_READ, ENGAGEMENTS_READ],
    feature: 'notes',
    source: 'associations-v4',
  },
  'crm.objects.tasks.batchApi.create': { scopes: [ENGAGEMENTS_WRITE], feature: 'tasks', source: 'tasks-v3' },
  'crm.objects.tasks.batchApi.read': { scopes: [ENGAGEMENTS_READ], feature: 'tasks', source: 'tasks-v3' },
  'crm.objects.tasks.batchApi.archive': {
    scopes: [ENGAGEMENTS_WRITE],
    feature: 'tasks',
    source: 'tasks-v3',
  },
  'crm.owners.ownersApi.getPage': { scopes: [OWNERS_READ], feature: 'owners', source: 'owners-v3' },
  // An OAuth token's own user (own-user.ts): the token is its own credential, no scope is named for it.
  'oauth.accessTokensApi.get': { scopes: [], feature: 'owners', source: 'hubspot-oauth-v1' },
  // The portal's UI domain for record links (ui-domain.ts). `oauth` is what every OAuth install asks for
  // already (hubspotInstallScopes); a token without it gets links on app.hubspot.com, nothing fails,
  // so it is not counted among a connection's missing scopes.
  'accountInfo.details.get': { scopes: ['oauth'], feature: 'links', source: 'hubspot-account-info-v3' },
};

const FEATURE_LABEL: Record<HubSpotFeature, string> = {
  accounts: 'reading and updating companies and their properties',
  notes: 'notes on companies',
  tasks: 'follow-up tasks',
  owners: 'company owners (follow-ups, the per-owner digest)',
  links: 'the console’s links to HubSpot records',
};

const enabled = (feature: HubSpotFeature, features: CrmFeatures) =>
  feature === 'accounts' || (feature !== 'links' && features[feature]);

/** The scopes the enabled features need, each once, in the table's order. */
export function hubspotScopes(features: CrmFeatures): string[] {
  const out = new Set<string>();
  for (const call of Object.values(HUBSPOT_CALL_SCOPES))
    if (enabled(call.feature, features)) for (const s of call.scopes) out.add(s);
  return [...out];
}

/** What the OAuth install asks for: `oauth` (every OAuth app's) and the features' scopes. */
export const hubspotInstallScopes = (features: CrmFeatures) => ['oauth', ...hubspotScopes(features)];

/** For each needed scope a token lacks: the scope and what needs it, for people. */
export function missingHubSpotScopes(
  granted: readonly string[],
  features: CrmFeatures,
): { scope: string; neededFor: string }[] {
  const have = new Set(granted);
  const missing = new Map<string, Set<string>>();
  for (const call of Object.values(HUBSPOT_CALL_SCOPES)) {
    if (!enabled(call.feature, features)) continue;
    for (const s of call.scopes)
      if (!have.has(s)) missing.set(s, (missing.get(s) ?? new Set()).add(FEATURE_LABEL[call.feature]));
  }
  return [...missing].map(([scope, uses]) => ({ scope, neededFor: [...uses].join('; ') }));
}
