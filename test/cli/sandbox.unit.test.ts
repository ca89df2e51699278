// `npm run sandbox` as a newcomer uses it: three emulators, the environment to paste, and accounts in each
// CRM under the very ids the README's examples quote, readable through each CRM's API with what it printed.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_ACCOUNTS } from '../../emulators/cli/sandbox-accounts.ts';
import { eventually } from '../helpers/poll.ts';

const EMULATORS_CLI = new URL('../../emulators/cli.ts', import.meta.url).pathname;
// The README's quick tour and the sandbox's own page quote them.
const README = ['../../README.md', '../../docs/sandbox.md']
  .map((file) => readFileSync(new URL(file, import.meta.url), 'utf8'))
  .join('\n');

/** The ids the README's `enrich … --dry-run` examples use, per CRM. */
function readmeIds(crm: 'hubspot' | 'salesforce'): string[] {
  const pattern = new RegExp(`enrich --crm ${crm} --account (\\w+) --dry-run`, 'g');
  return [...README.matchAll(pattern)].map((m) => m[1] ?? '');
}

let child: ChildProcessWithoutNullStreams;
let exited: Promise<number | null>;
let stdout = '';
const env: Record<string, string> = {};
/** Stands in for `buyer-intel-sync start` at --service-url: what the emulators send it. */
const received: { url: string; body: string }[] = [];
const service = createHttpServer((req: IncomingMessage, res) => {
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    received.push({ url: req.url ?? '', body });
    res.writeHead(200, { 'content-type': 'text/xml' });
    // An acknowledgement both senders accept (HubSpot any 2xx; Salesforce a SOAP Ack).
    res.end(
      '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><notificationsResponse xmlns="http://soap.sforce.com/2005/09/outbound"><Ack>true</Ack></notificationsResponse></soapenv:Body></soapenv:Envelope>',
    );
  });
});
let serviceUrl = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const address = service.address();
  serviceUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  child = spawn(process.execPath, [
    EMULATORS_CLI,
    'sandbox',
    '--service-url',
    serviceUrl,
    '--port',
    '0',
    '--hubspot-port',
    '0',
    '--salesforce-port',
    '0',
  ]);
  exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('Ctrl-C stops them.')) resolve();
    });
    child.on('close', (code) => reject(new Error(`the sandbox exited ${code} before it was ready`)));
  });
  for (const [, name = '', value = ''] of stdout.matchAll(/^export ([A-Z_]+)=(\S+)$/gm)) env[name] = value;
});

afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGTERM');
  await exited;
  await new Promise((resolve) => service.close(resolve));
});

/** The `id  name[, state]` lines printed under a CRM's heading. */
function printedAccounts(heading: string): { id: string; label: string }[] {
  const block = stdout.split(`\n${heading}`)[1]?.split('  try:')[0] ?? '';
  return [...block.matchAll(/^ {2}(?:\S+:)?\s+(\w+) {2}(.+)$/gm)].map((m) => ({
    id: m[1] ?? '',
    label: m[2] ?? '',
  }));
}

const labels = SANDBOX_ACCOUNTS.map((a) => `${a.name}${a.state ? `, ${a.state}` : ''}`);

describe('npm run sandbox', () => {
  it('prints the environment for the Buyer Intelligence API, HubSpot and Salesforce', () => {
    for (const name of [
      'BUYER_INTEL_BASE_URL',
      'BUYER_INTEL_TOKEN',
      'HUBSPOT_BASE_PATH',
      'HUBSPOT_ACCESS_TOKEN',
      'HUBSPOT_PORTAL_ID',
      'HUBSPOT_CLIENT_SECRET',
      'HUBSPOT_APP_ID',
      'SALESFORCE_INSTANCE_URL',
      'SALESFORCE_LOGIN_URL',
      'SALESFORCE_ORG_ID',
      'SALESFORCE_CLIENT_ID',
      'SALESFORCE_CLIENT_SECRET',
      'SALESFORCE_REFRESH_TOKEN',
      // What the README's next steps use besides: the service's own settings and the events' secrets.
      'REDIS_URL',
      'API_KEYS',
      'ADMIN_USERNAME',
      'ADMIN_PASSWORD',
      'SALESFORCE_OUTBOUND_TOKENS',
      'SALESFORCE_REFRESH_SECRETS',
      'BUYER_INTEL_WEBHOOK_SECRETS',
    ])
      expect(env[name], name).toBeTruthy();
    // The service listens where the emulators send their events.
    expect(`http://127.0.0.1:${env.PORT}`).toBe(serviceUrl);
    expect(env.PUBLIC_BASE_URL).toBe(serviceUrl);
    // A PostgreSQL to share is named when one answers; otherwise a comment says the embedded one is used.
    expect(env.DATABASE_URL ?? stdout.match(/^# DATABASE_URL: .+$/m)?.[0]).toBeTruthy();
    // …a database of the sandbox's own, never the server's `postgres` one people keep their tables in.
    if (env.DATABASE_URL && !process.env.DATABASE_URL)
      expect(new URL(env.DATABASE_URL).pathname).toBe('/buyer_intel_sandbox');
    // The README's calls to the service go where the sandbox said it listens, whatever port that is.
    const readmeCalls = README.split('\n').filter((l) => /^curl .*\/(api|readyz|healthz)/.test(l));
    expect(readmeCalls.length).toBeGreaterThan(0);
    for (const line of readmeCalls) expect(line).toContain('$PUBLIC_BASE_URL');
    expect(stdout).toMatch(/^Salesforce emulator: http:\/\/127\.0\.0\.1:\d+ {2}\(org 00D\w{15}\)$/m);
  });

  it('seeds HubSpot with the README’s companies, readable with the printed token', async () => {
    const seeded = printedAccounts('HubSpot emulator:');
    expect(seeded.map((a) => a.label)).toEqual(labels);
    const quoted = readmeIds('hubspot');
    expect(quoted.length).toBeGreaterThan(0);
    for (const id of quoted) expect(seeded.map((a) => a.id)).toContain(id);

    for (const [i, { id }] of seeded.entries()) {
      const res = await fetch(
        `${env.HUBSPOT_BASE_PATH}/crm/v3/objects/companies/${id}?properties=name,state`,
        { headers: { authorization: `Bearer ${env.HUBSPOT_ACCESS_TOKEN}` } },
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as { id: string; properties: Record<string, string | null> };
      expect(body.id).toBe(id);
      expect(body.properties.name).toBe(SANDBOX_ACCOUNTS[i]?.name);
      expect(body.properties.state ?? undefined).toBe(SANDBOX_ACCOUNTS[i]?.state);
    }
  });

  it('seeds Salesforce with the README’s Accounts, readable with the printed session and refresh token', async () => {
    const seeded = printedAccounts('Salesforce emulator:');
    expect(seeded.map((a) => a.label)).toEqual(labels);
    const quoted = readmeIds('salesforce');
    expect(quoted.length).toBeGreaterThan(0);
    for (const id of quoted) expect(seeded.map((a) => a.id)).toContain(id);

    const session = /Authorization: Bearer (00D[^']+)'/.exec(stdout)?.[1] ?? '';
    const token = await fetch(`${env.SALESFORCE_LOGIN_URL}/services/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: env.SALESFORCE_CLIENT_ID ?? '',
        client_secret: env.SALESFORCE_CLIENT_SECRET ?? '',
        refresh_token: env.SALESFORCE_REFRESH_TOKEN ?? '',
      }),
    });
    expect(token.status).toBe(200);
    const refreshed = ((await token.json()) as { access_token: string }).access_token;

    for (const bearer of [session, refreshed]) {
      const soql = `SELECT Id, Name, BillingState FROM Account WHERE Id IN ('${seeded.map((a) => a.id).join("','")}') ORDER BY Id`;
      const res = await fetch(
        `${env.SALESFORCE_INSTANCE_URL}/services/data/v62.0/query?q=${encodeURIComponent(soql)}`,
        { headers: { authorization: `Bearer ${bearer}` } },
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as {
        records: { Id: string; Name: string; BillingState: string | null }[];
      };
      expect(body.records.map((r) => [r.Id, r.Name, r.BillingState ?? undefined])).toEqual(
        seeded.map((a, i) => [a.id, SANDBOX_ACCOUNTS[i]?.name, SANDBOX_ACCOUNTS[i]?.state]),
      );
    }
  });

  it('sends a company or Account created from then on to the service at --service-url', async () => {
    const created = await fetch(`${env.HUBSPOT_BASE_PATH}/crm/v3/objects/companies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env.HUBSPOT_ACCESS_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ properties: { name: 'Travis County', state: 'TX' } }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const hubspot = await eventually(() => received.find((r) => r.url === '/webhooks/hubspot'));
    // The new company alone: the seeded ones are there for the dry runs, not sent.
    const events = JSON.parse(hubspot.body) as { subscriptionType: string; objectId: number }[];
    expect(new Set(events.map((e) => e.objectId))).toEqual(new Set([Number(id)]));
    expect(events).toContainEqual(
      expect.objectContaining({ subscriptionType: 'company.creation', objectId: Number(id) }),
    );

    // The create example the sandbox prints is a working request.
    expect(stdout).toMatch(
      /^ {2}create one: curl -X POST .*\/sobjects\/Account' -d '\{"Name": "Travis County", "BillingState": "TX"\}'$/m,
    );
    const account = await fetch(`${env.SALESFORCE_INSTANCE_URL}/services/data/v62.0/sobjects/Account`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${/Authorization: Bearer (00D[^']+)'/.exec(stdout)?.[1]}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ Name: 'Travis County', BillingState: 'TX' }),
    });
    expect(account.status).toBe(201);
    const outbound = await eventually(() => received.find((r) => r.url.startsWith('/webhooks/salesforce')));
    expect(outbound.url).toBe(`/webhooks/salesforce?token=${env.SALESFORCE_OUTBOUND_TOKENS}`);
    expect(outbound.body).toContain(`<OrganizationId>${env.SALESFORCE_ORG_ID}</OrganizationId>`);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('npm run sandbox with a port taken', () => {
  it('says which emulator and which option in one line, closes the others and exits 1', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const run = spawn(process.execPath, [
        EMULATORS_CLI,
        'sandbox',
        '--port',
        '0',
        '--hubspot-port',
        '0',
        '--salesforce-port',
        String(port),
      ]);
      let out = '';
      let err = '';
      run.stdout.on('data', (d) => {
        out += d;
      });
      run.stderr.on('data', (d) => {
        err += d;
      });
      // Exiting at all shows the emulators that had started were closed: they would keep it running.
      const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
      expect(code).toBe(1);
      expect(out).toBe('');
      expect(err).toBe(
        `buyer-intel-sync sandbox: Salesforce emulator: listen EADDRINUSE: address already in use 127.0.0.1:${port} (choose another with --salesforce-port)\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
