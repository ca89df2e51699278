// Fault: hostile or broken input at every entry point — the HubSpot webhook (bad/missing signature,
// replayed timestamp, oversized body, wrong content type, malformed JSON, unknown events, >100 events,
// invalid ids), the Salesforce Outbound Message endpoint (malformed XML, DOCTYPE/entity expansion,
// unknown org, >100 notifications), POST /api/refresh (no auth, bad JSON, injection strings), the CLI
// (unknown command, missing account, bad environment, broken mapping file), and account names made of
// injection strings.
// Asserts: each is answered with a clear 4xx (or exit code 1/2 and one clear message), nothing is
// enqueued (queue counts unchanged), the service still serves a good request afterwards, and the
// injection-string names are enriched (or left for review) without error.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import { defaultFieldName } from '../../connectors/salesforce/fields.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { SANDBOX_OUTBOUND_TOKEN } from '../../emulators/salesforce/index.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { runCliInProcess } from '../helpers/cli.ts';
import { CLI, cliEnv, creationEvent, postHubSpotWebhook, REDIS_URL } from '../helpers/reliability-env.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const prefix = `test-rel-input-${randomUUID().slice(0, 8)}`;
const API_KEY = `key-${randomUUID()}`;
const tmp = mkdtempSync(join(tmpdir(), 'rel-input-'));

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let sf: RunningSalesforceSandbox;
/** HTTP only: no worker, so whatever a request enqueues stays countable in the queue. */
let service: Service;
let base: string;
let hubspotUrl: string;
let salesforceUrl: string;
let austin: string;

beforeAll(async () => {
  [bi, hs, sf] = await Promise.all([
    startSandbox(),
    startHubSpotSandbox({ rateLimits: false }),
    startSalesforceSandbox({}),
  ]);
  service = await createTestService({
    ...sandboxSettings(
      { buyerIntel: bi, hubspot: hs, salesforce: sf },
      { redisUrl: REDIS_URL, prefix },
      { worker: { concurrency: 2, writeBatchWaitMs: 10 } },
    ),
    api: { apiKeys: [API_KEY] },
  });
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  await service.connector('salesforce', sf.orgId).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  base = (await service.startHttp(0, '127.0.0.1')).url;
  hubspotUrl = `${base}/webhooks/hubspot`;
  salesforceUrl = `${base}/webhooks/salesforce?token=${SANDBOX_OUTBOUND_TOKEN}`;
  austin = hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id;
});

afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close(), sf?.close()]);
  rmSync(tmp, { recursive: true, force: true });
});

const queued = async () =>
  Object.values(await service.queue.getJobCounts()).reduce((sum, n) => sum + (n ?? 0), 0);

/** Sends a request; resolves with status, content type and body text (never throws on an HTTP error). */
async function send(
  url: string,
  body: string | Uint8Array<ArrayBuffer>,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

function signed(body: string, timestamp = Date.now(), contentType = 'application/json') {
  const ts = String(timestamp);
  return {
    'Content-Type': contentType,
    'X-HubSpot-Request-Timestamp': ts,
    'X-HubSpot-Signature-v3': hubspotSignatureV3(hs.clientSecret, 'POST', hubspotUrl, body, ts),
  };
}

/** One creation event; the same arguments give the same bytes (a fixed occurredAt), so it can be signed apart. */
const oneEvent = (objectId: unknown = austin, extra: Record<string, unknown> = {}) =>
  JSON.stringify([{ ...creationEvent(hs, 1, 1), occurredAt: 1_760_000_000_000, objectId, ...extra }]);

/** A good, signed delivery for a fresh company: the receiver still serves (200, one job). */
async function expectStillServing(): Promise<void> {
  const before = await queued();
  const id = hs.store.createCompany({ name: 'Travis County', state: 'TX' }, { source: 'CRM_UI' }).id;
  const status = await postHubSpotWebhook(hubspotUrl, hs.clientSecret, oneEvent(Number(id)));
  expect(status).toBe(200);
  expect(await queued()).toBe(before + 1);
}

describe('POST /webhooks/hubspot', () => {
  const cases: [string, () => Promise<{ status: number; type: string; text: string }>, number, RegExp][] = [
    [
      'no signature',
      () => send(hubspotUrl, oneEvent(), { 'Content-Type': 'application/json' }),
      401,
      /missing/i,
    ],
    [
      'a wrong signature',
      () => send(hubspotUrl, oneEvent(), { ...signed(oneEvent()), 'X-HubSpot-Signature-v3': 'AAAA' }),
      401,
      /does not match/,
    ],
    [
      'a body changed after signing',
      () => send(hubspotUrl, oneEvent(Number(austin) + 1), signed(oneEvent())),
      401,
      /does not match/,
    ],
    [
      'a replayed delivery with a 10-minute-old timestamp',
      () => send(hubspotUrl, oneEvent(), signed(oneEvent(), Date.now() - 10 * 60_000)),
      401,
      /older than 5 minutes/,
    ],
    [
      'a timestamp that is not a number',
      () =>
        send(hubspotUrl, oneEvent(), { ...signed(oneEvent()), 'X-HubSpot-Request-Timestamp': 'yesterday' }),
      401,
      /not a number/,
    ],
    ['malformed JSON', () => send(hubspotUrl, '[{"eventId":', signed('[{"eventId":')), 400, /not valid JSON/],
    [
      'a form body under the wrong content type',
      () =>
        send(hubspotUrl, 'objectId=1', signed('objectId=1', Date.now(), 'application/x-www-form-urlencoded')),
      415,
      /application\/json/,
    ],
    [
      'an object instead of a batch',
      () => send(hubspotUrl, '{"a":1}', signed('{"a":1}')),
      400,
      /invalid|expected/i,
    ],
    ['an empty batch', () => send(hubspotUrl, '[]', signed('[]')), 400, /empty batch/],
    [
      'a batch of 101 events',
      () => {
        const body = JSON.stringify(
          Array.from({ length: 101 }, (_, i) => ({ ...creationEvent(hs, Number(austin), i), eventId: i })),
        );
        return send(hubspotUrl, body, signed(body));
      },
      400,
      /more than 100 events/,
    ],
    ...(
      [
        ['a non-numeric objectId', 'abc'],
        ['an objectId with SQL in it', '1; DROP TABLE accounts'],
        ['a fractional objectId', 1.5],
      ] as const
    ).map(
      ([what, id]) =>
        [
          what,
          () => send(hubspotUrl, oneEvent(id), signed(oneEvent(id))),
          400,
          /objectId/,
        ] as (typeof cases)[number],
    ),
    [
      'a body over 1 MiB',
      () => {
        const body = `[${' '.repeat(1024 * 1024 + 10)}]`;
        return send(hubspotUrl, body, signed(body));
      },
      413,
      /too large/,
    ],
  ];

  it.each(cases)(
    'refuses %s with a clear 4xx and enqueues nothing',
    async (_what, request, status, message) => {
      const before = await queued();
      const res = await request();
      expect(res.status).toBe(status);
      expect(res.type).toMatch(/json/);
      expect((JSON.parse(res.text) as { message: string }).message).toMatch(message);
      expect(await queued()).toBe(before);
    },
  );

  it('refuses an event without an objectId', async () => {
    const before = await queued();
    const { objectId: _dropped, ...event } = creationEvent(hs, 1, 1);
    const body = JSON.stringify([event]);
    const res = await send(hubspotUrl, body, signed(body));
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/objectId/);
    expect(await queued()).toBe(before);
  });

  it('acknowledges unknown event types and other portals without enqueueing', async () => {
    const before = await queued();
    const body = JSON.stringify([
      { ...creationEvent(hs, Number(austin), 1), subscriptionType: 'contact.creation' },
      { ...creationEvent(hs, Number(austin), 2), subscriptionType: 'company.deletion' },
      { ...creationEvent(hs, Number(austin), 3), portalId: 999_999_999 },
    ]);
    const res = await send(hubspotUrl, body, signed(body));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ received: 3, enqueued: 0, ignored: 3 });
    expect(await queued()).toBe(before);
  });

  // Once a bug: -1 was queued as account "-1" and 1e30 as account "1e+30".
  it('refuses a negative or out-of-range objectId instead of queueing a job for it', async () => {
    for (const id of [-1, 1e30]) {
      const before = await queued();
      const res = await send(hubspotUrl, oneEvent(id), signed(oneEvent(id)));
      expect(res.status, `objectId ${id}: ${res.text}`).toBe(400);
      expect(await queued()).toBe(before);
    }
  });

  it('keeps serving afterwards', expectStillServing);
});

describe('POST /webhooks/salesforce', () => {
  const envelope = (org: string, notifications: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><notifications xmlns="http://soap.sforce.com/2005/09/outbound"><OrganizationId>${org}</OrganizationId>${notifications}</notifications></soapenv:Body></soapenv:Envelope>`;
  const notification = (i: number) =>
    `<Notification><Id>04l000000000${String(i).padStart(3, '0')}AAA</Id><sObject xsi:type="sf:Account" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:sf="urn:sobject.enterprise.soap.sforce.com"><sf:Id>001000000000${String(i).padStart(3, '0')}AAA</sf:Id></sObject></Notification>`;
  const xml = { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '""' };

  const cases: [string, () => string, number, RegExp][] = [
    [
      'malformed XML',
      () => envelope(sf.orgId, '<Notification><Id>').replace('</notifications>', ''),
      400,
      /malformed|not an Outbound/,
    ],
    [
      'a DOCTYPE with entity expansion (billion laughs)',
      () =>
        `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>${envelope(sf.orgId, notification(1)).replace(/^<\?xml[^>]*>/, '')}`,
      400,
      /DOCTYPE/,
    ],
    [
      'an external entity',
      () => `<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><x>&xxe;</x>`,
      400,
      /DOCTYPE/,
    ],
    [
      'an unknown org',
      () => envelope('00D000000000001EAA', notification(1)),
      403,
      /not valid for OrganizationId/,
    ],
    [
      'an org id whose checksum does not hold (00D…ZZZ)',
      () => envelope(`${sf.orgId.slice(0, 15)}ZZZ`, notification(1)),
      400,
      /not a Salesforce id/,
    ],
    ['an empty body', () => '', 400, /empty body/],
    [
      '101 notifications',
      () => envelope(sf.orgId, Array.from({ length: 101 }, (_, i) => notification(i)).join('')),
      400,
      /more than 100/,
    ],
    [
      'a notification with an injected id',
      () => envelope(sf.orgId, notification(1).replace(/001000000000001AAA/, "001' OR '1'='1")),
      400,
      /not a Salesforce id/,
    ],
  ];

  it.each(cases)(
    'refuses %s with a SOAP fault and enqueues nothing',
    async (_what, body, status, message) => {
      const before = await queued();
      const res = await send(salesforceUrl, body(), xml);
      expect(res.status).toBe(status);
      expect(res.text).toContain('<faultcode>soapenv:Client</faultcode>');
      expect(res.text).toMatch(message);
      expect(await queued()).toBe(before);
    },
  );

  it('keeps serving: a good message is acknowledged and queued', async () => {
    const before = await queued();
    const id = sf.store.create('Account', { Name: 'Travis County', BillingState: 'TX' }).id;
    const body = envelope(sf.orgId, notification(7).replace('001000000000007AAA', id));
    const res = await send(salesforceUrl, body, xml);
    expect(res.text).toContain('<Ack>true</Ack>');
    expect(await queued()).toBe(before + 1);
  });
});

describe('POST /api/refresh', () => {
  const refresh = (body: string, headers: Record<string, string> = {}) =>
    send(`${base}/api/refresh`, body, { 'Content-Type': 'application/json', ...headers });
  const key = { Authorization: `Bearer ${API_KEY}` };

  const cases: [string, () => ReturnType<typeof refresh>, number, RegExp][] = [
    ['no credentials', () => refresh(JSON.stringify({ crm: 'hubspot', accountId: austin })), 401, /./],
    [
      'a wrong API key',
      () => refresh(JSON.stringify({ crm: 'hubspot', accountId: austin }), { Authorization: 'Bearer nope' }),
      401,
      /./,
    ],
    ['bad JSON', () => refresh('{"crm":', key), 400, /not valid JSON/],
    [
      'an unknown CRM',
      () => refresh(JSON.stringify({ crm: 'pipedrive', accountId: austin }), key),
      400,
      /crm/,
    ],
    [
      'an unknown member',
      () => refresh(JSON.stringify({ crm: 'hubspot', accountId: austin, admin: true }), key),
      400,
      /admin|unrecognized/i,
    ],
    ...[
      "1' OR '1'='1",
      '1; DROP TABLE accounts',
      '<script>alert(1)</script>',
      '../../etc/passwd',
      'x'.repeat(65),
      '',
    ].map(
      (accountId) =>
        [
          `the account id ${JSON.stringify(accountId.slice(0, 30))}`,
          () => refresh(JSON.stringify({ crm: 'hubspot', accountId }), key),
          400,
          /accountId/,
        ] as (typeof cases)[number],
    ),
    [
      'an injected tenant',
      () =>
        refresh(
          JSON.stringify({ crm: 'salesforce', tenant: "00D' OR 1=1", accountId: '001000000000001' }),
          key,
        ),
      400,
      /tenant/,
    ],
  ];

  it.each(cases)(
    'refuses %s with a clear 4xx and enqueues nothing',
    async (_what, request, status, message) => {
      const before = await queued();
      const res = await request();
      expect(res.status).toBe(status);
      expect(res.type).toMatch(/json/);
      const body = JSON.parse(res.text) as { error: string; message: string };
      expect(body.error).toEqual(expect.any(String));
      expect(body.message).toMatch(message);
      expect(await queued()).toBe(before);
    },
  );

  it('keeps serving: a good refresh is queued', async () => {
    const before = await queued();
    const res = await refresh(JSON.stringify({ crm: 'hubspot', accountId: austin }), key);
    expect(res.status).toBeLessThan(300);
    expect(await queued()).toBe(before + 1);
  });
});

describe('the CLI', () => {
  // In this process (runCliInProcess: the CLI's own `main`, ~1 s of Node start and imports cheaper a
  // run): what is asserted is the exit code and the one line, which no real process changes. The
  // unknown command stays a real run of the binary, the one case here that loads no command's module.
  const env = (extra: Record<string, string> = {}) => cliEnv(bi, hs, prefix, extra);
  const cli = runCliInProcess;
  function binary(
    args: string[],
    env: Record<string, string>,
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, [CLI, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  }

  it('an unknown command exits 2 naming it', async () => {
    const r = await binary(['enrichh'], env());
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toMatch(
      /^buyer-intel-sync: unknown command "enrichh" \(commands: .*enrich.*\)/,
    );
  });

  it('enrich without --account exits 2; an unknown option exits 2', async () => {
    const missing = await cli(['enrich', '--crm', 'hubspot'], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr.split('\n')[0]).toBe(
      'buyer-intel-sync enrich: --account <id> is required (see buyer-intel-sync enrich --help)',
    );
    const unknown = await cli(['enrich', '--acount', '1'], env());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^buyer-intel-sync enrich: .*--acount/);
  });

  it('enrich of an account that does not exist exits 1 with one line naming it', async () => {
    const r = await cli(['enrich', '--crm', 'hubspot', '--account', '987654321', '--dry-run'], env());
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^buyer-intel-sync enrich: .*987654321.*not found/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a bad environment exits 1 listing every bad variable, without a stack trace or a secret', async () => {
    const r = await cli(
      ['enrich', '--account', '1'],
      env({
        BUYER_INTEL_BASE_URL: 'not a url',
        WORKER_CONCURRENCY: 'many',
        REDIS_URL: 'http://localhost',
        HUBSPOT_PORTAL_ID: 'abc',
        HUBSPOT_ACCESS_TOKEN: 'pat-na1-very-secret',
      }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe('buyer-intel-sync enrich: invalid configuration:');
    for (const name of ['BUYER_INTEL_BASE_URL', 'WORKER_CONCURRENCY', 'REDIS_URL', 'HUBSPOT_PORTAL_ID'])
      expect(r.stderr).toContain(`- ${name}`);
    expect(r.stderr).not.toContain('pat-na1-very-secret');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a broken mapping file exits 1 naming the file and the lines of its problems', async () => {
    const yamlFile = join(tmp, 'mapping.yaml');
    writeFileSync(
      yamlFile,
      [
        'version: 1',
        'fields:',
        '  - attribute: Populaton',
        '    property: buyer_intel_population',
        '    policy: sometimes',
        '',
      ].join('\n'),
    );
    const yaml = await cli(['enrich', '--account', '1', '--dry-run'], env({ MAPPING_FILE: yamlFile }));
    expect(yaml.code).toBe(1);
    expect(yaml.stderr).toContain('mapping.yaml');
    expect(yaml.stderr).toMatch(/mapping\.yaml:3:\d+/);
    expect(yaml.stderr).toMatch(/mapping\.yaml:5:\d+/);
    expect(yaml.stderr).not.toMatch(/\n\s+at /);

    const jsonFile = join(tmp, 'mapping.json');
    writeFileSync(
      jsonFile,
      '{\n  "version": 1,\n  "fields": [\n    { "attribute": "Population", }\n  ]\n}\n',
    );
    const json = await cli(['enrich', '--account', '1', '--dry-run'], env({ MAPPING_FILE: jsonFile }));
    expect(json.code).toBe(1);
    expect(json.stderr).toMatch(/mapping\.json:4/);

    const missing = await cli(['enrich', '--account', '1'], env({ MAPPING_FILE: join(tmp, 'nope.yaml') }));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nope.yaml');
  });
});

describe('account names made of injection strings', () => {
  const names = [
    "'; DROP TABLE accounts; --",
    '<script>alert(1)</script>',
    "O'Brien County",
    'Robert"); DELETE FROM buyers;--',
    '%00\u0000null',
  ];

  it.each(names)('enriches the HubSpot company %j without error', async (name) => {
    const id = hs.store.createCompany({ name, state: 'IA' }, { source: 'CRM_UI' }).id;
    const result = await service.enrich({ crm: 'hubspot', tenant: String(hs.portalId), accountId: id });
    expect(['enriched', 'needs_review', 'no_match']).toContain(result.status);
    expect(hs.store.get('companies', id)?.values.get(P.status)).toBe(result.status);
    expect(hs.store.get('companies', id)?.values.get('name')).toBe(name);
  });

  it.each(names)('enriches the Salesforce Account %j without error', async (name) => {
    const id = sf.store.create('Account', { Name: name, BillingState: 'IA' }).id;
    const result = await service.enrich({ crm: 'salesforce', tenant: sf.orgId, accountId: id });
    expect(['enriched', 'needs_review', 'no_match']).toContain(result.status);
    expect(sf.store.find('Account', id).values.get(defaultFieldName(P.status))).toBe(result.status);
  });

  it("a buyer whose name has a quote (O'Brien) is still found", async () => {
    const buyer = bi.dataset.buyers.find((b) => b.name.includes("'"));
    expect(buyer, 'a buyer with a quote in its name').toBeDefined();
    if (!buyer) return;
    const id = hs.store.createCompany({ name: buyer.name, state: buyer.stateCode }, { source: 'CRM_UI' }).id;
    const result = await service.enrich({ crm: 'hubspot', tenant: String(hs.portalId), accountId: id });
    expect(result.status).not.toBe('no_match');
  });
});
