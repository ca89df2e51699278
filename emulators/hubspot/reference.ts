// The published documents the HubSpot emulator's answers are checked against (conformance mode):
// files under test/fixtures/reference/, each with its row in SOURCES.md. Its descriptor (index.ts) and
// its app (app.ts) both read it, so the conformance check learns the documents from the emulator.
import type { ConformanceReference } from '../descriptor.ts';
import { HUBSPOT_RULES } from './conformance-rules.ts';

export const HUBSPOT_REFERENCE: ConformanceReference = {
  api: 'hubspot',
  documents: [
    'hubspot-openapi/companies-v3.json',
    'hubspot-openapi/notes-v3.json',
    'hubspot-openapi/tasks-v3.json',
    'hubspot-openapi/properties-v3.json',
    'hubspot-openapi/associations-v4.json',
    'hubspot-openapi/oauth-v3.json',
    'hubspot-openapi/owners-v3.json',
    'hubspot-oauth-v1.json',
    'hubspot-account-info-v3.json',
  ],
  rules: HUBSPOT_RULES,
};
