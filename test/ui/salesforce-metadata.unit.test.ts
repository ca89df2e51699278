// Static checks of the Salesforce DX source in connectors/salesforce (Apex cannot run here).
import { createHmac } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import {
  HISTORY_PAGE_EVENTS,
  type HistoryChange,
  type HistoryField,
} from '../../connectors/hubspot/app/src/app/cards/buyer-intel-api.ts';
import * as card from '../../connectors/hubspot/app/src/app/cards/buyer-intel-format.ts';
import {
  historyReducer as cardHistoryReducer,
  initialHistoryState as cardInitialHistory,
  type HistoryEvent,
} from '../../connectors/hubspot/app/src/app/cards/history-logic.ts';
import { isSalesforceId } from '../../connectors/salesforce/ids.ts';
import {
  SALESFORCE_USER,
  salesforceRequestSignatureV3,
  verifySalesforceRequest,
} from '../../connectors/salesforce/request-signature.ts';
import { undoBodySchema } from '../../src/api/undo-routes.ts';
import { crmSchema, rejectBodySchema, researchBodySchema } from '../../src/review/schemas.ts';
import { isRunId } from '../../src/store/runs.ts';
import { isHistoryCursor } from '../../src/store/write-history.ts';

const SF_ROOT = join(import.meta.dirname, '../../connectors/salesforce');
const DEFAULT = join(SF_ROOT, 'force-app/main/default');
const API_VERSION = '62.0';

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const files = walk(join(SF_ROOT, 'force-app'));
const xmlFiles = files.filter((f) => f.endsWith('.xml'));
const parser = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'target' });
const parse = (path: string) =>
  parser.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, unknown>>;
/** The document element of an XML file (fails the test when it is missing). */
function root(path: string, name: string): Record<string, unknown> {
  const el = parse(path)[name];
  if (!el) throw new Error(`${relative(SF_ROOT, path)} has no <${name}> root`);
  return el;
}
const read = (path: string) => readFileSync(join(DEFAULT, path), 'utf8');
/** A `NAME = <integer>;` constant of the Apex controller. */
const apexMax = (name: string) => {
  const m = read('classes/BuyerIntelRefreshController.cls').match(new RegExp(`${name} = (\\d+);`));
  if (!m?.[1]) throw new Error(`${name} not found in the Apex controller`);
  return Number(m[1]);
};

describe('sfdx project', () => {
  it('has sfdx-project.json with force-app as the default package directory', () => {
    const project = JSON.parse(readFileSync(join(SF_ROOT, 'sfdx-project.json'), 'utf8'));
    expect(project.packageDirectories).toEqual([{ path: 'force-app', default: true }]);
    expect(project.sourceApiVersion).toBe(API_VERSION);
  });

  it('every XML file is well formed', () => {
    expect(xmlFiles.length).toBeGreaterThan(8);
    for (const file of xmlFiles) {
      const result = XMLValidator.validate(readFileSync(file, 'utf8'));
      expect(result, relative(SF_ROOT, file)).toBe(true);
    }
  });

  it('every Apex class has a .cls-meta.xml with the current API version', () => {
    const classes = files.filter((f) => f.endsWith('.cls'));
    expect(classes.map((f) => relative(DEFAULT, f)).sort()).toEqual([
      'classes/BuyerIntelRefreshController.cls',
      'classes/BuyerIntelRefreshControllerTest.cls',
    ]);
    for (const cls of classes) {
      expect(existsSync(`${cls}-meta.xml`), cls).toBe(true);
      const meta = parse(`${cls}-meta.xml`).ApexClass;
      expect(meta?.apiVersion).toBe(Number(API_VERSION));
      expect(meta?.status).toBe('Active');
    }
  });

  it('every LWC bundle has its js and js-meta.xml; buyerIntelRefresh is an Account screen action', () => {
    const lwcDir = join(DEFAULT, 'lwc');
    const bundles = readdirSync(lwcDir);
    expect(bundles).toContain('buyerIntelRefresh');
    for (const bundle of bundles) {
      expect(existsSync(join(lwcDir, bundle, `${bundle}.js`)), bundle).toBe(true);
      expect(existsSync(join(lwcDir, bundle, `${bundle}.js-meta.xml`)), bundle).toBe(true);
    }
    const meta = root(
      join(lwcDir, 'buyerIntelRefresh/buyerIntelRefresh.js-meta.xml'),
      'LightningComponentBundle',
    );
    expect(meta.apiVersion).toBe(Number(API_VERSION));
    expect(meta.isExposed).toBe(true);
    expect((meta.targets as { target: string[] }).target).toEqual(['lightning__RecordAction']);
    const config = (meta.targetConfigs as { targetConfig: Record<string, unknown> }).targetConfig;
    expect(config['@_targets']).toBe('lightning__RecordAction');
    expect(config.actionType).toBe('ScreenAction');

    const action = parse(join(DEFAULT, 'quickActions/Account.Buyer_Intel.quickAction-meta.xml')).QuickAction;
    expect(action).toMatchObject({
      type: 'LightningWebComponent',
      lightningWebComponent: 'buyerIntelRefresh',
      actionSubtype: 'ScreenAction',
    });
  });

  it('the LWC calls exactly the @AuraEnabled controller methods, passing their parameters by name', () => {
    const js = read('lwc/buyerIntelRefresh/buyerIntelRefresh.js');
    const cls = read('classes/BuyerIntelRefreshController.cls');
    const auraEnabled = new Map(
      [...cls.matchAll(/@AuraEnabled\s+public static Map<String, Object> (\w+)\(([^)]*)\)/g)].map((m) => [
        m[1] ?? '',
        (m[2] ?? '').split(',').map((p) => p.trim().split(/\s+/)[1] ?? ''),
      ]),
    );
    const imported = [
      ...js.matchAll(/import (\w+) from '@salesforce\/apex\/BuyerIntelRefreshController\.(\w+)';/g),
    ];
    expect(imported.every((m) => m[1] === m[2])).toBe(true);
    expect(imported.map((m) => m[2]).sort()).toEqual([...auraEnabled.keys()].sort());
    expect([...auraEnabled.keys()].sort()).toEqual([
      'clearRejection',
      'confirmCandidate',
      'getHistory',
      'getMatch',
      'jobStatus',
      'refresh',
      'rejectAccount',
      'researchAccount',
      'undoLastChange',
      'undoStatus',
    ]);
    // Apex takes a call's parameters by name: a key the method lacks would arrive as null.
    for (const [method, params] of auraEnabled) {
      const calls = [...js.matchAll(new RegExp(`\\b${method}\\(\\{([^}]*)\\}\\)`, 'g'))];
      expect(calls.length, `${method} is called`).toBeGreaterThan(0);
      for (const call of calls) {
        const keys = (call[1] ?? '').split(',').map((k) => k.split(':')[0]?.trim() ?? '');
        expect(keys.sort(), `${method}({${call[1]}})`).toEqual([...params].sort());
      }
    }
  });

  it("the LWC's Jest tests and mocks stay out of a deploy (.forceignore)", () => {
    const ignored = readFileSync(join(SF_ROOT, '.forceignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/__tests__/**', '**/jest-mocks/**']));
    expect(files.some((f) => f.includes('/__tests__/'))).toBe(true);
  });

  it('the named credential points at a placeholder HTTPS URL and uses the external credential', () => {
    const nc = root(
      join(DEFAULT, 'namedCredentials/BuyerIntelSync.namedCredential-meta.xml'),
      'NamedCredential',
    );
    expect(nc.namedCredentialType).toBe('SecuredEndpoint');
    expect(nc.allowMergeFieldsInHeader).toBe(true);
    const params = nc.namedCredentialParameters as { parameterType: string; parameterValue?: string }[];
    expect(params.find((p) => p.parameterType === 'Url')?.parameterValue).toMatch(/^https:\/\//);
    expect(params.find((p) => p.parameterType === 'Authentication')).toMatchObject({
      externalCredential: 'BuyerIntelSync',
    });
    const ec = parse(
      join(DEFAULT, 'externalCredentials/BuyerIntelSync.externalCredential-meta.xml'),
    ).ExternalCredential;
    expect(ec?.authenticationProtocol).toBe('Custom');
    const ps = parse(join(DEFAULT, 'permissionsets/Buyer_Intel_User.permissionset-meta.xml')).PermissionSet;
    expect(ps?.externalCredentialPrincipalAccesses).toMatchObject({
      externalCredentialPrincipal: 'BuyerIntelSync-BuyerIntelSigner',
    });
  });
});

describe('Apex request signing stays in step with the service contract', () => {
  const cls = read('classes/BuyerIntelRefreshController.cls');
  const test = read('classes/BuyerIntelRefreshControllerTest.cls');

  it('signs timestamp + "." + nonce + "." + org + "." + user + "." + body with HMAC-SHA256, lowercase hex, "v3="', () => {
    expect(cls).toContain(
      "return ts + '.' + nonce + '.' + org + '.' + userName + '.' + (rawBody == null ? '' : rawBody);",
    );
    expect(cls).toMatch(
      /Crypto\.generateMac\(\s*'hmacSHA256',\s*Blob\.valueOf\(canonicalString\(ts, nonce, org, userName, rawBody\)\)/,
    );
    expect(cls).toContain('EncodingUtil.convertToHex(mac).toLowerCase()');
    expect(cls).toContain("SIGNATURE_VERSION = 'v3'");
    expect(cls).toContain("SIGNATURE_VERSION + '=' + sign(secret, ts, nonce, org, userName, rawBody)");
    // Named Credential formula path: same canonical string, lowercase HEX of HMAC SHA-256.
    expect(cls).toMatch(
      /base64Encode\(\s*Blob\.valueOf\(canonicalString\(ts, nonce, org, userName, rawBody\)\)\s*\)/,
    );
    expect(cls).toContain("'={!HEX(HMAC(\\'SHA-256\\', BASE64DECODE(\\''");
  });

  it('sends the five X-BuyerIntel headers (this org and the running user signed), unix seconds and the org id as tenant', () => {
    expect(cls).toContain("HEADER_TIMESTAMP = 'X-BuyerIntel-Timestamp'");
    expect(cls).toContain("HEADER_NONCE = 'X-BuyerIntel-Nonce'");
    expect(cls).toContain("HEADER_ORG = 'X-BuyerIntel-Org'");
    expect(cls).toContain("HEADER_USER = 'X-BuyerIntel-User'");
    expect(cls).toContain("HEADER_SIGNATURE = 'X-BuyerIntel-Signature'");
    expect(cls).toContain('String userName = UserInfo.getUserName();');
    // The Apex refuses a username the service would (an Apex string literal doubles each backslash).
    const apexPattern = cls.match(/USER_PATTERN = '([^']*)';/)?.[1]?.replaceAll('\\\\', '\\');
    expect(`^${apexPattern}$`).toBe(SALESFORCE_USER.source);
    expect(cls).toContain('!Pattern.matches(USER_PATTERN, userName)');
    expect(cls).toContain('req.setHeader(HEADER_USER, userName);');
    // The org in the header is the one signed, in the 18-character form (an Id holds no other), and the tenant.
    expect(cls).toContain('String org = orgId();');
    expect(cls).toContain('req.setHeader(HEADER_ORG, org);');
    expect(cls).toContain(
      'req.setHeader(HEADER_SIGNATURE, signatureHeader(ts, nonce, org, userName, rawBody));',
    );
    expect(cls).toMatch(/Id org = UserInfo\.getOrganizationId\(\);\s*return String\.valueOf\(org\);/);
    expect(cls).toMatch(/String tenant\(\) \{\s*return orgId\(\);/);
    expect(cls).toContain('Datetime.now().getTime() / 1000');
    expect(cls).toContain("req.setEndpoint('callout:' + NAMED_CREDENTIAL + path);");
    expect(cls).toContain("NAMED_CREDENTIAL = 'BuyerIntelSync'");
  });

  const constant = (name: string) => {
    const m = test.match(new RegExp(`${name} = '([^']*)'`));
    if (!m?.[1]) throw new Error(`${name} not found in the Apex test`);
    return m[1];
  };
  const ts = test.match(/TS = (\d+)L;/)?.[1] ?? '';
  const secret = constant('SECRET');
  const nonce = constant('NONCE');
  const user = constant('USERNAME');
  const org = constant('ORG');
  const body = constant('VECTOR_BODY');

  it("the Apex test's org is an 18-character org id, the only form the service signs with", () => {
    expect(org).toHaveLength(18);
    expect(isSalesforceId(org, '00D')).toBe(true);
  });

  it("the Apex test's HMAC vectors match Node's crypto and the service's v3 signature", () => {
    const hmac = (payload: string) => createHmac('sha256', secret).update(payload).digest('hex');
    expect(constant('VECTOR_HEX')).toBe(hmac(`${ts}.${nonce}.${org}.${user}.${body}`));
    expect(constant('VECTOR_EMPTY_BODY_HEX')).toBe(hmac(`${ts}.${nonce}.${org}.${user}.`));
    expect(salesforceRequestSignatureV3(secret, ts, nonce, org, user, body)).toBe(
      `v3=${constant('VECTOR_HEX')}`,
    );
    expect(salesforceRequestSignatureV3(secret, ts, nonce, org, user, '')).toBe(
      `v3=${constant('VECTOR_EMPTY_BODY_HEX')}`,
    );
  });

  it("the service accepts the Apex test's vectors as signed by its org and user, and no other", () => {
    const request = (sent: string, hex: string, change: Record<string, string | undefined> = {}) =>
      verifySalesforceRequest({
        secrets: [secret],
        headers: {
          'x-buyerintel-timestamp': ts,
          'x-buyerintel-nonce': nonce,
          'x-buyerintel-org': org,
          'x-buyerintel-user': user,
          'x-buyerintel-signature': `v3=${hex}`,
          ...change,
        },
        body: sent,
        nowSeconds: Number(ts),
      });
    const hex = constant('VECTOR_HEX');
    expect(request(body, hex)).toEqual({ ok: true, nonce, user, org });
    expect(request('', constant('VECTOR_EMPTY_BODY_HEX'))).toEqual({ ok: true, nonce, user, org });
    expect(request(body, hex, { 'x-buyerintel-user': `x${user}` })).toMatchObject({ ok: false });
    // Another (well-formed) org, the same org's 15-character form, or no org at all: refused.
    expect(request(body, hex, { 'x-buyerintel-org': '00DAm000000BcDeMAK' })).toEqual({
      ok: false,
      reason: 'signature does not match',
    });
    expect(request(body, hex, { 'x-buyerintel-org': org.slice(0, 15) })).toMatchObject({ ok: false });
    expect(request(body, hex, { 'x-buyerintel-org': undefined })).toMatchObject({ ok: false });
    // The same MAC offered as v2 (the version that names no org) is not taken either.
    expect(
      request(body, hex, { 'x-buyerintel-org': undefined, 'x-buyerintel-signature': `v2=${hex}` }),
    ).toEqual({
      ok: false,
      reason: 'signature does not match',
    });
  });

  it('the Apex test covers every action, HTTP errors and the signature with an HttpCalloutMock', () => {
    expect(test).toContain('implements HttpCalloutMock');
    for (const name of [
      'refreshSendsSignedPostThroughNamedCredential',
      'getMatchSendsTenantAndAddsTheAccountFieldsToPrefillAReSearch',
      'jobStatusAndConfirm',
      'rejectClearAndResearchPostTheDecisionSignedByTheRunningUser',
      'reviewInputIsRefusedBeforeAnyCallout',
      'aRefusedDecisionShowsTheServiceMessage',
      'httpErrorSurfacesTheServiceMessage',
      'signsTimestampNonceOrgUserBodyAsLowercaseHex',
      'signsWithTheOrgsEighteenCharacterId',
      'getHistoryReadsAPageOfTheAccountsChangesSignedByTheRunningUser',
      'getHistoryRefusesABadCursorOrAnAccountOutOfReachBeforeAnyCallout',
      'eachRefusalTellsTheRepWhatHappenedAndWhoCanHelp',
      'aCalloutThatTimesOutOrCannotUseTheCredentialSaysTheServiceIsUnreachable',
      'undoPreviewsThenQueuesTheAccountsLastChangeAndFollowsItsRun',
      'undoRefusesABadRunIdOrAnAccountOutOfReachBeforeAnyCallout',
    ])
      expect(test).toMatch(new RegExp(`@IsTest\\s+static void ${name}\\(\\)`));
    // Each @AuraEnabled method is exercised by the Apex tests.
    for (const m of cls.matchAll(/@AuraEnabled\s+public static Map<String, Object> (\w+)\(/g))
      expect(test).toContain(`BuyerIntelRefreshController.${m[1]}(`);
  });

  it("the controller refuses input the service would (the same bounds as the service's schemas)", () => {
    const [reason, name, state] = [apexMax('MAX_REASON'), apexMax('MAX_NAME'), apexMax('MAX_STATE')];
    const fits = (schema: typeof rejectBodySchema | typeof researchBodySchema, body: object) =>
      schema.safeParse(body).success;
    expect(fits(rejectBodySchema, { reason: 'x'.repeat(reason) })).toBe(true);
    expect(fits(rejectBodySchema, { reason: 'x'.repeat(reason + 1) })).toBe(false);
    expect(fits(researchBodySchema, { name: 'x'.repeat(name), state: 's'.repeat(state) })).toBe(true);
    expect(fits(researchBodySchema, { name: 'x'.repeat(name + 1) })).toBe(false);
    expect(fits(researchBodySchema, { state: 's'.repeat(state + 1) })).toBe(false);
    // A null is refused: the controller leaves a blank name or state out instead.
    expect(fits(researchBodySchema, { name: 'x', state: null })).toBe(false);
  });

  it("the controller's undo asks for its own account's last change, which the service takes", () => {
    const undo = undoBodySchema(crmSchema);
    const account = { crm: 'salesforce', tenant: '00D5g000004XyZaEAK', accountId: '001000000000001AAA' };
    // The body undoLastChange serializes: the account of this org, and dryRun always said.
    expect(cls).toMatch(/'account' => account, 'dryRun' => preview/);
    for (const key of ["'crm' => CRM", "'tenant' => tenant()", "'accountId' => String.valueOf(accountId)"])
      expect(cls).toContain(key);
    expect(undo.safeParse({ account, dryRun: true }).success).toBe(true);
    expect(undo.safeParse({ account, dryRun: false }).success).toBe(true);
    // Its run is followed by id: the controller lets through only what the service hands out.
    const apexRunId = new RegExp(`^${cls.match(/RUN_ID_PATTERN = '([^']*)';/)?.[1]}$`);
    for (const id of [
      '42',
      '123456789012345678',
      '1234567890123456789',
      '',
      '4 2',
      '../runs',
      '42?limit=500',
    ])
      expect([id, apexRunId.test(id)]).toEqual([id, isRunId(id)]);
  });
});

interface FormatModule {
  isTerminal(state: string): boolean;
  statusLabel(status: string): string;
  formatConfidence(confidence: unknown): string;
  diffRows(job: unknown): { property: string; from: string; to: string; change: string }[];
  createdNotes(job: unknown): { key: string; title: string }[];
  candidateRows(match: unknown): { buyerId: string; label: string; scoreLabel: string }[];
  reduceError(error: unknown): string;
  MAX_REASON: number;
  MAX_NAME: number;
  MAX_STATE: number;
  isRejected(match: unknown): boolean;
  researchDefaults(match: unknown): { name: string; state: string };
  rejectInput(reason: unknown): { reason: string } | { error: string };
  researchInput(
    name: unknown,
    state: unknown,
  ): { name: string | null; state: string | null } | { error: string };
  jobTitles(action: string): { busy: string; done: string; failed: string };
  HISTORY_STEP: number;
  fieldLabel(field: string): string;
  changeLines(change: unknown): string[];
  runDescription(change: unknown): string;
  changeView(
    change: unknown,
    index: number,
  ): { key: string; heading: string; lines: { key: string; text: string }[] };
  historyPageOf(raw: unknown): { changes: unknown[]; next: string | null } | null;
  initialHistoryState(): unknown;
  historyReducer(state: unknown, event: unknown): unknown;
  visibleChanges(state: unknown): HistoryChange[];
  pageWanted(state: unknown): string | null;
}

describe('LWC pure helpers (buyerIntelFormat.js)', async () => {
  const modulePath = join(DEFAULT, 'lwc/buyerIntelRefresh/buyerIntelFormat.js');
  const fmt = (await import(modulePath)) as FormatModule;

  it('formats status, confidence and terminal job states', () => {
    expect(fmt.statusLabel('needs_review')).toBe('Needs review');
    expect(fmt.formatConfidence(0.61)).toBe('61%');
    expect(fmt.formatConfidence(null)).toBe('—');
    expect(fmt.isTerminal('completed')).toBe(true);
    expect(fmt.isTerminal('failed')).toBe(true);
    expect(fmt.isTerminal('waiting-children')).toBe(false);
  });

  it('builds diff rows old → new (skipping unchanged fields) and lists created notes', () => {
    const job = {
      id: 'job-1',
      state: 'completed',
      result: {
        status: 'enriched',
        fields: [
          { property: 'Buyer_Type__c', attribute: 'type', from: null, to: 'city', action: 'set' },
          { property: 'Buyer_State__c', attribute: 'stateCode', from: 'IL', to: 'IL', action: 'unchanged' },
        ],
        notes: { created: [{ key: 'rfp-1', title: 'RFP: Roads' }] },
      },
    };
    expect(fmt.diffRows(job)).toEqual([
      expect.objectContaining({ property: 'Buyer_Type__c', from: '—', to: 'city', change: '— → city' }),
    ]);
    expect(fmt.createdNotes(job)).toEqual([{ key: 'rfp-1', title: 'RFP: Roads' }]);
    expect(fmt.diffRows({ id: 'x', state: 'active' })).toEqual([]);
  });

  it('labels candidates and reduces Apex errors to their message', () => {
    const rows = fmt.candidateRows({
      candidates: [
        { buyerId: 'b-7', name: 'Springfield County', stateCode: 'IL', type: 'county', score: 0.61 },
      ],
    });
    expect(rows[0]).toMatchObject({
      buyerId: 'b-7',
      label: 'Springfield County (county, IL)',
      scoreLabel: '61%',
    });
    expect(fmt.reduceError({ body: { message: 'Buyer intel service returned HTTP 401' } })).toBe(
      'Buyer intel service returned HTTP 401',
    );
    expect(fmt.reduceError(new Error('boom'))).toBe('boom');
  });

  it('tells a rejected account by the words the service writes, and only a no-match one', () => {
    const rejected = {
      status: 'no_match',
      explanation: 'Rejected by salesforce jane@acme.example: a vendor',
    };
    expect(fmt.isRejected(rejected)).toBe(true);
    expect(fmt.isRejected({ status: 'no_match', explanation: 'No buyer scored above 0.5' })).toBe(false);
    expect(fmt.isRejected({ ...rejected, status: 'enriched' })).toBe(false);
    expect(fmt.isRejected(undefined)).toBe(false);
    // The service's `pinned` decides when it is there (a rejected account re-searched keeps its words).
    expect(fmt.isRejected({ ...rejected, pinned: false })).toBe(false);
    expect(fmt.isRejected({ status: 'no_match', explanation: 'Not a buyer', pinned: true })).toBe(true);
  });

  it("prefills a re-search with the Account's name and billing state, else what the service read", () => {
    expect(
      fmt.researchDefaults({ name: 'Springfield', accountName: 'Springfield Water', billingState: 'IL' }),
    ).toEqual({ name: 'Springfield Water', state: 'IL' });
    expect(fmt.researchDefaults({ name: 'Springfield', billingState: null })).toEqual({
      name: 'Springfield',
      state: '',
    });
    expect(fmt.researchDefaults(undefined)).toEqual({ name: '', state: '' });
  });

  it("checks the forms' input with the controller's bounds and messages before any call", () => {
    expect([fmt.MAX_REASON, fmt.MAX_NAME, fmt.MAX_STATE]).toEqual(
      ['MAX_REASON', 'MAX_NAME', 'MAX_STATE'].map(apexMax),
    );
    expect(fmt.rejectInput('  a vendor  ')).toEqual({ reason: 'a vendor' });
    expect(fmt.rejectInput('   ')).toEqual({ error: 'Give the reason this account is not a public buyer.' });
    expect(fmt.rejectInput('x'.repeat(fmt.MAX_REASON + 1))).toEqual({
      error: 'The reason is at most 500 characters.',
    });
    expect(fmt.researchInput(' City of Springfield ', '')).toEqual({
      name: 'City of Springfield',
      state: null,
    });
    expect(fmt.researchInput(null, ' IL ')).toEqual({ name: null, state: 'IL' });
    expect(fmt.researchInput('', ' ')).toEqual({ error: 'Give a name or a state to search with.' });
    expect(fmt.researchInput('x'.repeat(fmt.MAX_NAME + 1), 'IL')).toEqual({
      error: 'The name is at most 300 characters.',
    });
    expect(fmt.researchInput('Springfield', 's'.repeat(fmt.MAX_STATE + 1))).toEqual({
      error: 'The state is at most 64 characters.',
    });
    // The same words as the Apex controller, whichever side refuses.
    const cls = read('classes/BuyerIntelRefreshController.cls');
    for (const message of [
      'Give the reason this account is not a public buyer.',
      'Give a name or a state to search with.',
    ])
      expect(cls).toContain(`'${message}'`);
  });

  it('titles each action while it runs, when done and when it failed', () => {
    expect(fmt.jobTitles('reject')).toEqual({
      busy: 'Rejecting…',
      done: 'Rejected: not a public buyer',
      failed: 'Rejecting failed',
    });
    expect(fmt.jobTitles('research').done).toBe('Search complete');
    expect(fmt.jobTitles('refresh').done).toBe('Refresh complete');
    // Every action the component runs has its own words, not the generic ones.
    const actions = [
      ...read('lwc/buyerIntelRefresh/buyerIntelRefresh.js').matchAll(/this\.runJob\('(\w+)'/g),
    ];
    expect(actions.map((a) => a[1]).sort()).toEqual(['clear', 'confirm', 'refresh', 'reject', 'research']);
    for (const action of actions)
      expect(fmt.jobTitles(action[1] ?? '').done).not.toBe(fmt.jobTitles('no such action').done);
  });
});

describe("the quick action's last changes say what the HubSpot card says", async () => {
  const fmt = (await import(join(DEFAULT, 'lwc/buyerIntelRefresh/buyerIntelFormat.js'))) as FormatModule;
  const cls = read('classes/BuyerIntelRefreshController.cls');
  const AT = '2026-11-20T10:00:00.000Z';
  const field = (
    name: string,
    old: string | null,
    value: string | null,
    extra: object = {},
  ): HistoryField => ({
    field: name,
    attribute: null,
    kind: name.startsWith('buyer_intel_') ? 'provenance' : 'mapped',
    old,
    new: value,
    decision: 'write',
    result: 'ok',
    error: null,
    at: AT,
    ...extra,
  });
  const change = (overrides: Partial<HistoryChange> = {}): HistoryChange => ({
    crm: 'salesforce',
    tenant: '00D000000000001EAA',
    accountId: '001000000000001AAA',
    at: AT,
    runId: '7',
    run: { kind: 'refresh', label: 'refresh salesforce 00D000000000001EAA 001000000000001AAA', actor: null },
    jobId: 'job-7',
    trigger: 'refresh',
    buyerId: 'b-1',
    fields: [],
    notes: [],
    ...overrides,
  });
  const runs: HistoryChange['run'][] = [
    {
      kind: 'backfill',
      label: 'backfill of 2002 accounts (Salesforce 00D000000000001EAA)',
      actor: 'cli (ops)',
    },
    { kind: 'backfill', label: 'backfill of every account (Salesforce 00D000000000001EAA)', actor: null },
    { kind: 'refresh', label: 'refresh salesforce x y', actor: 'key:0a1b2c3d' },
    { kind: 'confirm', label: 'confirm salesforce x y', actor: 'salesforce jane.doe@acme.example' },
    { kind: 'review', label: 'reject salesforce x y', actor: 'salesforce jane.doe@acme.example' },
    { kind: 'review', label: 'clear salesforce x y', actor: 'admin' },
    { kind: 'reenrich', label: 'scheduled re-enrichment 3', actor: null },
    { kind: 'webhook', label: 'Salesforce webhook: 2 events', actor: null },
    { kind: 'undo', label: 'undo job 4', actor: 'cli (ops)' },
    null,
  ];
  const changes = [
    change({
      fields: [
        field('buyer_intel_status', 'needs_review', 'enriched'),
        field('buyer_intel_last_enriched_at', null, AT),
        field('buyer_intel_population', '160000', '167000'),
        field('buyer_intel_employee_fte', '1200', '1350', {
          decision: 'blocked-edited-by-person',
          result: 'not_sent',
        }),
        field('BuyerIntel_Url__c', null, 'x', { result: 'error', error: '400: INVALID_URL' }),
        field('buyer_intel_lms', 'Canvas', 'Moodle', { decision: 'blocked-not-empty', result: 'not_sent' }),
      ],
      notes: [{ action: 'created', noteId: 'n', dedupeKey: 'k', title: 'RFP: Roads', at: AT }],
    }),
    change({ fields: [field('buyer_intel_match_confidence', '0.8', '0.9')] }),
    change({ fields: [field('buyer_intel_type', null, 'y'.repeat(90))], trigger: 'signal', run: null }),
  ];

  it('the same lines and the same run, for every kind of run and line', () => {
    for (const run of runs) {
      const c = change({ run, trigger: run ? 'refresh' : 'signal' });
      expect(fmt.runDescription(c), run?.label).toBe(card.runDescription(c));
    }
    expect(fmt.runDescription(change({ run: runs[3] ?? null }))).toBe('confirmed by jane.doe@acme.example');
    expect(fmt.runDescription(change({ run: runs[0] ?? null }))).toBe('backfill of 2,002 accounts');
    for (const c of changes) expect(fmt.changeLines(c)).toEqual(card.changeLines(c));
    expect(fmt.changeLines(changes[0])).toEqual([
      'URL: not saved (400: INVALID_URL)',
      'Employee FTE: kept your value (1200)',
      'LMS: kept the value already there (Canvas)',
      'Status: Needs review → Enriched',
      'Note added: RFP: Roads',
      'Population: 160000 → 167000',
    ]);
    for (const name of ['buyer_intel_parent_buyer_id', 'BuyerIntel_TotalEnrollment__c', 'annual_budget'])
      expect(fmt.fieldLabel(name)).toBe(card.fieldLabel(name));
    const view = fmt.changeView(changes[0], 0);
    expect(view.heading).toMatch(/ · refresh$/);
    expect(view.lines.map((l) => l.text)).toEqual(fmt.changeLines(changes[0]));
    expect(new Set(view.lines.map((l) => l.key)).size).toBe(view.lines.length);
  });

  it('the same paging: five at a time, a change cut by a page held back, a stale answer dropped', () => {
    const job = (n: number) =>
      change({ jobId: `job-${n}`, fields: [field('buyer_intel_county', null, `C${n}`)] });
    const events: HistoryEvent[] = [
      { type: 'reload' },
      {
        type: 'page',
        request: 1,
        after: null,
        page: { changes: [1, 2, 3, 4, 5, 6, 7].map(job), next: '41' },
      },
      { type: 'show_more' },
      { type: 'fetching', after: '41' },
      { type: 'reload' },
      // The answer to the read a reload replaced.
      { type: 'page', request: 1, after: '41', page: { changes: [job(7), job(8)], next: null } },
      { type: 'failed', request: 2, after: null, message: 'Buyer intel service returned HTTP 503' },
      { type: 'retry' },
      { type: 'page', request: 3, after: null, page: { changes: [1, 2, 3].map(job), next: '12' } },
      { type: 'show_more' },
      { type: 'fetching', after: '12' },
      { type: 'page', request: 3, after: '12', page: { changes: [job(3), job(4)], next: null } },
    ];
    let lwc = fmt.initialHistoryState();
    let hubspot = cardInitialHistory;
    for (const event of events) {
      lwc = fmt.historyReducer(lwc, event);
      hubspot = cardHistoryReducer(hubspot, event);
      expect(lwc, event.type).toEqual(hubspot);
      expect(fmt.pageWanted(lwc), event.type).toBe(fmt.pageWanted(hubspot));
    }
    expect(fmt.visibleChanges(lwc).map((c) => [c.jobId, c.fields.length])).toEqual([
      ['job-1', 1],
      ['job-2', 1],
      ['job-3', 2],
      ['job-4', 1],
    ]);
    expect(fmt.HISTORY_STEP).toBe(5);
  });

  it('reads a page Apex hands over as a map, a missing `next` as the last page', () => {
    expect(fmt.historyPageOf({ changes: [] })).toEqual({ changes: [], next: null });
    expect(fmt.historyPageOf({ changes: [], next: '41' })).toEqual({ changes: [], next: '41' });
    expect(fmt.historyPageOf({ crm: 'salesforce' })).toBeNull();
    expect(fmt.historyPageOf(null)).toBeNull();
  });

  it('the controller asks for a page as the card does, and lets only a cursor of the service through', () => {
    expect(cls).toMatch(new RegExp(`HISTORY_PAGE_EVENTS = ${HISTORY_PAGE_EVENTS};`));
    expect(HISTORY_PAGE_EVENTS).toBeLessThanOrEqual(500);
    const apexCursor = new RegExp(`^${cls.match(/CURSOR_PATTERN = '([^']*)';/)?.[1]}$`);
    for (const cursor of [
      '41',
      '123456789012345678',
      '1234567890123456789',
      '',
      '4 1',
      '41&limit=500',
      '../x',
    ])
      expect([cursor, apexCursor.test(cursor)]).toEqual([cursor, isHistoryCursor(cursor)]);
    expect(cls).toContain('!Pattern.matches(CURSOR_PATTERN, after)');
    expect(cls).toMatch(/getHistory\(Id accountId, String after\) \{\s+assertReadableAccount\(accountId\);/);
  });

  it('every handler and binding the template names is in the component', () => {
    const html = read('lwc/buyerIntelRefresh/buyerIntelRefresh.html');
    const js = read('lwc/buyerIntelRefresh/buyerIntelRefresh.js');
    const names = new Set([...html.matchAll(/=\{(\w+)\}/g)].map((m) => m[1] ?? ''));
    for (const local of ['c', 'row', 'note', 'change', 'line', 'remark']) names.delete(local);
    expect(names.has('handleShowMore')).toBe(true);
    for (const name of names)
      expect(js, name).toMatch(new RegExp(`(get ${name}\\(\\)|^\\s+(async )?${name}(\\(| =|;))`, 'm'));
  });
});
