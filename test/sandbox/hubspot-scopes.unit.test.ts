// The emulator's scope rules (emulators/hubspot/scopes.ts) against the `security` sections of HubSpot's
// documents: every CRM operation of the documents needs a scope, and every scope the emulator accepts
// for it is one the document lists, so the emulator never admits a token HubSpot would refuse.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scopeNeeds } from '../../emulators/hubspot/scopes.ts';

const DOCS = ['companies-v3', 'notes-v3', 'tasks-v3', 'properties-v3', 'associations-v4', 'owners-v3'];
const TYPES = ['companies', 'notes', 'tasks'];

interface Doc {
  paths: Record<string, Record<string, { security?: { oauth2?: string[] }[] }>>;
}

const operations = DOCS.flatMap((name) => {
  const doc = JSON.parse(
    readFileSync(new URL(`../fixtures/reference/hubspot-openapi/${name}.json`, import.meta.url), 'utf8'),
  ) as Doc;
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      name,
      method,
      path,
      documented: new Set((op.security ?? []).flatMap((s) => s.oauth2 ?? [])),
    })),
  );
});

describe('HubSpot emulator scopes', () => {
  it('reads every operation of the documents', () => {
    expect(operations.length).toBe(59);
  });

  for (const type of TYPES)
    it(`needs only documented scopes, and at least one, for every operation on ${type}`, () => {
      const wrong: string[] = [];
      for (const op of operations) {
        if (op.path.includes('/usage/')) continue; // not an object's operation; the emulator has none
        const route = op.path.replace(/\{([^}]+)\}/g, ':$1');
        // Object documents name their own type in the path; the others take it as a parameter.
        if (/^\/crm\/v3\/objects\/[a-z]+/.test(route) && !route.startsWith(`/crm/v3/objects/${type}`))
          continue;
        const params = { objectType: type, fromObjectType: type, toObjectType: type };
        const needs = scopeNeeds(op.method, route, params);
        if (!needs.length) wrong.push(`${op.method} ${op.path}: needs no scope`);
        for (const need of needs)
          for (const scope of need)
            if (!op.documented.has(scope)) wrong.push(`${op.method} ${op.path}: ${scope} is not documented`);
      }
      expect(wrong).toEqual([]);
    });

  it('needs the documented `oauth` for the account details (transcribed: hubspot-account-info-v3.json)', () => {
    const doc = JSON.parse(
      readFileSync(new URL('../fixtures/reference/hubspot-account-info-v3.json', import.meta.url), 'utf8'),
    ) as Doc;
    const documented = (doc.paths['/account-info/v3/details']?.get?.security ?? []).flatMap(
      (s) => s.oauth2 ?? [],
    );
    expect(documented).toEqual(['oauth']);
    expect(scopeNeeds('get', '/account-info/v3/details', {})).toEqual([documented]);
  });
});
