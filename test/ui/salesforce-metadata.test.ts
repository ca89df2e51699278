// Static checks of the Salesforce DX source in connectors/salesforce (Apex cannot run here).
import { createHmac } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';

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

  it('the LWC calls exactly the four @AuraEnabled controller methods', () => {
    const js = read('lwc/buyerIntelRefresh/buyerIntelRefresh.js');
    const cls = read('classes/BuyerIntelRefreshController.cls');
    for (const method of ['getMatch', 'refresh', 'jobStatus', 'confirmCandidate']) {
      expect(js).toContain(`@salesforce/apex/BuyerIntelRefreshController.${method}'`);
      expect(cls).toMatch(new RegExp(`@AuraEnabled\\s+public static Map<String, Object> ${method}\\(`));
    }
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

  it('signs timestamp + "." + nonce + "." + body with HMAC-SHA256, lowercase hex, "v1=" prefix', () => {
    expect(cls).toContain("return ts + '.' + nonce + '.' + (rawBody == null ? '' : rawBody);");
    expect(cls).toMatch(
      /Crypto\.generateMac\(\s*'hmacSHA256',\s*Blob\.valueOf\(canonicalString\(ts, nonce, rawBody\)\)/,
    );
    expect(cls).toContain('EncodingUtil.convertToHex(mac).toLowerCase()');
    expect(cls).toContain("SIGNATURE_VERSION = 'v1'");
    expect(cls).toContain("SIGNATURE_VERSION + '=' + sign(secret, ts, nonce, rawBody)");
    // Named Credential formula path: same canonical string, lowercase HEX of HMAC SHA-256.
    expect(cls).toContain("'={!HEX(HMAC(\\'SHA-256\\', BASE64DECODE(\\''");
  });

  it('sends the three X-BuyerIntel headers, unix-second timestamps and the org id as tenant', () => {
    expect(cls).toContain("HEADER_TIMESTAMP = 'X-BuyerIntel-Timestamp'");
    expect(cls).toContain("HEADER_NONCE = 'X-BuyerIntel-Nonce'");
    expect(cls).toContain("HEADER_SIGNATURE = 'X-BuyerIntel-Signature'");
    expect(cls).toContain('Datetime.now().getTime() / 1000');
    expect(cls).toContain('return UserInfo.getOrganizationId();');
    expect(cls).toContain("req.setEndpoint('callout:' + NAMED_CREDENTIAL + path);");
    expect(cls).toContain("NAMED_CREDENTIAL = 'BuyerIntelSync'");
  });

  it("the Apex test's HMAC vectors match Node's crypto (what the service computes)", () => {
    const constant = (name: string) => {
      const m = test.match(new RegExp(`${name} = '([^']*)'`));
      if (!m?.[1]) throw new Error(`${name} not found in the Apex test`);
      return m[1];
    };
    const ts = test.match(/TS = (\d+)L;/)?.[1];
    const secret = constant('SECRET');
    const nonce = constant('NONCE');
    const body = constant('VECTOR_BODY');
    const hmac = (payload: string) => createHmac('sha256', secret).update(payload).digest('hex');
    expect(constant('VECTOR_HEX')).toBe(hmac(`${ts}.${nonce}.${body}`));
    expect(constant('VECTOR_EMPTY_BODY_HEX')).toBe(hmac(`${ts}.${nonce}.`));
  });

  it('the Apex test covers success, HTTP error and the signature format with an HttpCalloutMock', () => {
    expect(test).toContain('implements HttpCalloutMock');
    expect(test).toMatch(/static void refreshSendsSignedPostThroughNamedCredential\(\)/);
    expect(test).toMatch(/static void httpErrorSurfacesTheServiceMessage\(\)/);
    expect(test).toMatch(/static void signsTimestampNonceBodyAsLowercaseHex\(\)/);
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
});
