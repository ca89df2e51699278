// The HubSpot developer project (connectors/hubspot/app) against the shapes HubSpot documents for
// platform version 2025.2, written as JSON Schemas in test/fixtures/hubspot-project (each rule's source
// in SOURCE.md there): hsproject.json, app-hsmeta.json and every card's *-hsmeta.json validate, and
// the rules across files hold (where each file lives, unique uids, the card's entrypoint exists, the
// scopes its object needs, the service's URL permitted for hubspot.fetch). Broken copies of the real
// files are refused, each by the rule it breaks.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { BACKEND_URL } from '../../connectors/hubspot/app/src/app/cards/BuyerIntelCard.tsx';

const PROJECT = join(import.meta.dirname, '../../connectors/hubspot/app');
const SCHEMAS = join(import.meta.dirname, '../fixtures/hubspot-project');

type Json = Record<string, unknown>;
const read = (path: string): Json => JSON.parse(readFileSync(path, 'utf8')) as Json;

const ajv = new Ajv({ allErrors: true, strict: true });
addFormats.default(ajv);
for (const name of ['app-hsmeta', 'card-hsmeta', 'hsproject'])
  ajv.addSchema(read(join(SCHEMAS, `${name}.schema.json`)), `${name}.schema.json`);

type SchemaName = 'hsproject' | 'app-hsmeta' | 'card-hsmeta';
/** The problems the schema finds, as `path keyword` (empty when the file is valid). */
function problems(schema: SchemaName, value: unknown): string[] {
  const validate = ajv.getSchema(`${schema}.schema.json`);
  if (!validate) throw new Error(`no schema ${schema}`);
  validate(value);
  return (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.keyword}`);
}

const project = read(join(PROJECT, 'hsproject.json'));
const srcDir = join(PROJECT, String(project.srcDir));
const app = read(join(srcDir, 'app/app-hsmeta.json'));
const cardFiles = readdirSync(join(srcDir, 'app/cards')).filter((f) => f.endsWith('-hsmeta.json'));
const cards = cardFiles.map((f) => ({ file: f, meta: read(join(srcDir, 'app/cards', f)) }));
const card = cards[0]?.meta ?? {};
const config = (meta: Json) => meta.config as Json;

describe('the HubSpot project as HubSpot documents it (2025.2)', () => {
  it('hsproject.json, app-hsmeta.json and each card validate', () => {
    expect(problems('hsproject', project)).toEqual([]);
    expect(problems('app-hsmeta', app)).toEqual([]);
    expect(cards.length).toBeGreaterThan(0);
    for (const { file, meta } of cards) expect([file, problems('card-hsmeta', meta)]).toEqual([file, []]);
  });

  it('every file is where the platform looks for it, and every uid is unique', () => {
    expect(existsSync(srcDir)).toBe(true);
    // *-hsmeta.json only at the root of app/ and of each feature folder, never deeper.
    const nested = readdirSync(join(srcDir, 'app'), { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('-hsmeta.json') && f.split('/').length > 2,
    );
    expect(nested).toEqual([]);
    const uids = [app.uid, ...cards.map((c) => c.meta.uid)];
    expect(new Set(uids).size).toBe(uids.length);
  });

  it("each card's entrypoint is a React file of the project, and its objects' scopes are required", () => {
    const scopes = (config(app).auth as Json).requiredScopes as string[];
    for (const { meta } of cards) {
      const entry = String(config(meta).entrypoint);
      expect([entry, existsSync(join(srcDir, entry))]).toEqual([entry, true]);
      for (const object of config(meta).objectTypes as string[])
        expect(scopes).toContain(`crm.objects.${object}.read`);
    }
  });

  it("the service's URL the card calls is permitted for hubspot.fetch", () => {
    const fetch = (config(app).permittedUrls as Json).fetch as string[];
    expect(fetch).toContain(new URL(BACKEND_URL).origin);
  });
});

/** A copy of `value` with `path` (dotted) set to `to`, or removed when `to` is undefined. */
function broken(value: Json, path: string, to?: unknown): Json {
  const copy = structuredClone(value);
  const keys = path.split('.');
  const last = keys.pop() ?? '';
  let at: Json = copy;
  for (const k of keys) at = at[k] as Json;
  if (to === undefined) delete at[last];
  else at[last] = to;
  return copy;
}

describe('the other shapes HubSpot documents are accepted (the schemas are not narrower than HubSpot)', () => {
  it('a card in the sidebar, the preview or the help desk, on several objects, with a preview image', () => {
    for (const location of ['crm.record.sidebar', 'crm.preview', 'helpdesk.sidebar'])
      expect(problems('card-hsmeta', broken(card, 'config.location', location))).toEqual([]);
    // HubSpot's own 2025.2 get-started card names its object in capitals (CONTACT).
    for (const objects of [['companies', 'deals', 'tickets'], ['COMPANY'], ['p_buyer_profiles']])
      expect(problems('card-hsmeta', broken(card, 'config.objectTypes', objects))).toEqual([]);
    const image = { file: './preview.png', altText: 'The buyer intel card' };
    expect(problems('card-hsmeta', broken(card, 'config.previewImage', image))).toEqual([]);
  });

  it('an OAuth app, private or listed on the marketplace, with optional and conditional scopes', () => {
    const oauth = broken(app, 'config.auth', {
      type: 'oauth',
      redirectUrls: ['https://buyer-intel.example.com/oauth/callback', 'http://localhost:3000'],
      requiredScopes: ['oauth', 'crm.objects.companies.read'],
      optionalScopes: ['crm.objects.line_items.read', 'e-commerce'],
      conditionallyRequiredScopes: ['crm.objects.contacts.sensitive.read.v2'],
    });
    expect(problems('app-hsmeta', oauth)).toEqual([]);
    expect(problems('app-hsmeta', broken(oauth, 'config.distribution', 'marketplace'))).toEqual([]);
  });
});

describe('broken project files are refused, each by the rule it breaks', () => {
  it.each([
    ['a card location HubSpot has not', 'config.location', 'crm.record.middle', '/config/location enum'],
    ['a card without its uid', 'uid', undefined, '/ required'],
    ['a card on no object', 'config.objectTypes', [], '/config/objectTypes minItems'],
    ['a mixed-case object name', 'config.objectTypes', ['Companies'], '/config/objectTypes/0 pattern'],
    [
      'an entrypoint outside app/cards',
      'config.entrypoint',
      'BuyerIntelCard.tsx',
      '/config/entrypoint pattern',
    ],
    ['a card of another type', 'type', 'crm-card', '/type const'],
  ])('card: %s', (_, path, to, refusal) => {
    expect(problems('card-hsmeta', broken(card, path, to))).toContain(refusal);
  });

  it.each([
    [
      'a scope in another format',
      'config.auth.requiredScopes',
      ['companies:write'],
      '/config/auth/requiredScopes/0 pattern',
    ],
    [
      'an upper-case scope',
      'config.auth.optionalScopes',
      ['CRM.OBJECTS.COMPANIES.READ'],
      '/config/auth/optionalScopes/0 pattern',
    ],
    [
      'a fetch URL over http',
      'config.permittedUrls.fetch',
      ['http://buyer-intel.example.com'],
      '/config/permittedUrls/fetch/0 pattern',
    ],
    [
      'a fetch URL on localhost',
      'config.permittedUrls.fetch',
      ['https://localhost:3000'],
      '/config/permittedUrls/fetch/0 not',
    ],
    ['an unknown distribution', 'config.distribution', 'public', '/config/distribution enum'],
    ['a marketplace app with static auth', 'config.distribution', 'marketplace', '/config/auth/type const'],
    ['OAuth without a redirect URL', 'config.auth.type', 'oauth', '/config/auth required'],
    ['a uid with a space', 'uid', 'buyer intel', '/uid pattern'],
    ['a uid over 64 characters', 'uid', 'x'.repeat(65), '/uid maxLength'],
    ['a name ending in a space', 'config.name', 'Buyer Intel Sync ', '/config/name pattern'],
    [
      'the 2023 platform’s scopes field',
      'config.scopes',
      ['crm.objects.companies.read'],
      '/config additionalProperties',
    ],
    ['an app without auth', 'config.auth', undefined, '/config required'],
  ])('app: %s', (_, path, to, refusal) => {
    expect(problems('app-hsmeta', broken(app, path, to))).toContain(refusal);
  });

  it.each([
    ['another platform version', 'platformVersion', '2023.2', '/platformVersion const'],
    ['no srcDir', 'srcDir', undefined, '/ required'],
    ['a srcDir outside the project', 'srcDir', '../src', '/srcDir not'],
  ])('hsproject.json: %s', (_, path, to, refusal) => {
    expect(problems('hsproject', broken(project, path, to))).toContain(refusal);
  });
});
