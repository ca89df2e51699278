// Hostile load (issue 45, item 3): ten ~1 MB hostile requests of one kind at a time kept in flight
// against the real service (HTTP role, on the emulators, real Redis and PostgreSQL when
// TEST_DATABASE_URL/BENCH_DATABASE_URL names one), while /healthz is asked every 10 ms. Reports per kind
// /healthz p50/p90, the service's longest event-loop block (perf_hooks.monitorEventLoopDelay, in the
// service's process) and the answers the hostile requests got. Not part of CI or `npm run bench`:
//   node bench/hostile-load.ts [--seconds 3] [--kinds hubspot-bad-signature,…]
// The load, the /healthz probe and the emulators run in processes of their own (this file, forked with
// --load, --probe and --emulators), so that building and sending 1 MB bodies, or the emulators' heap,
// never delays the probe or the service. Size: the four roles stay in one file so it can fork itself.
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { hubspotSignatureV3 } from '../connectors/hubspot/webhook-signature.ts';
import { buildDataset } from '../emulators/buyer-intel/data/dataset.ts';
import { startBuyerIntelSandbox } from '../emulators/buyer-intel/server.ts';
import type { HubSpotEndpoint } from '../emulators/hubspot/index.ts';
import { startHubSpotSandbox } from '../emulators/hubspot/server.ts';
import type { SalesforceEndpoint } from '../emulators/salesforce/index.ts';
import { SANDBOX_OUTBOUND_TOKEN } from '../emulators/salesforce/index.ts';
import { startSalesforceSandbox } from '../emulators/salesforce/server.ts';
import { type SandboxEndpoints, sandboxSettings } from '../emulators/settings.ts';
import { createService } from '../src/service/runtime.ts';
import { benchDatabase } from './bench-db.ts';
import { deletePrefix } from './redis-cleanup.ts';

const MB = 1024 * 1024;
const KINDS = [
  'hubspot-bad-signature',
  'hubspot-bad-signature-250k',
  'hubspot-deep-json',
  'hubspot-deep-json-250k',
  'hubspot-wide-json',
  'hubspot-wide-json-250k',
  'salesforce-many-elements',
  'salesforce-deep-xml',
  'provider-bad-signature',
  'api-deep-json',
  'admin-post',
] as const;
type Kind = (typeof KINDS)[number];
/** 1 MB, or just under the HubSpot receiver's 256-KiB cap for the kinds that must get past it. */
const sizeOf = (kind: Kind) => (kind.endsWith('-250k') ? 250_000 : MB);

interface Target {
  base: string;
  hubspotSecret: string;
  orgId: string;
  apiKey: string;
  admin: { username: string; password: string };
}

/** One hostile request of `kind`: its path, headers and ~1 MB body (the same bytes every time). */
function hostile(
  kind: Kind,
  t: Target,
  bodies: Map<Kind, string>,
): { path: string; headers: Record<string, string>; body: string } {
  const json = { 'content-type': 'application/json' };
  const body = (make: () => string) => {
    const made = bodies.get(kind) ?? make();
    bodies.set(kind, made);
    return made;
  };
  const hubspotSigned = (b: string, valid: boolean) => {
    const timestamp = String(Date.now());
    const uri = `${t.base}/webhooks/hubspot`;
    return {
      ...json,
      'x-hubspot-request-timestamp': timestamp,
      'x-hubspot-signature-v3': valid
        ? hubspotSignatureV3(t.hubspotSecret, 'POST', uri, b, timestamp)
        : `${'A'.repeat(43)}=`,
    };
  };
  const levels = (n: number, open: string, close: string) => open.repeat(n) + close.repeat(n);
  const envelope = (inner: string) =>
    '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>' +
    `<notifications xmlns="http://soap.sforce.com/2005/09/outbound"><OrganizationId>${t.orgId}</OrganizationId>${inner}</notifications></soapenv:Body></soapenv:Envelope>`;
  switch (kind) {
    case 'hubspot-bad-signature':
    case 'hubspot-bad-signature-250k': {
      const b = body(() =>
        JSON.stringify(
          Array.from({ length: 9000 }, (_, i) => ({
            eventId: i,
            subscriptionType: 'company.creation',
            portalId: 1,
            objectId: i,
            occurredAt: 1,
            pad: 'x'.repeat(40),
          })),
        ).slice(0, sizeOf(kind)),
      );
      return { path: '/webhooks/hubspot', headers: hubspotSigned(b, false), body: b };
    }
    case 'hubspot-deep-json':
    case 'hubspot-deep-json-250k': {
      const b = body(() => levels(sizeOf(kind) / 2, '[', ']'));
      return { path: '/webhooks/hubspot', headers: hubspotSigned(b, true), body: b };
    }
    case 'hubspot-wide-json':
    case 'hubspot-wide-json-250k': {
      const b = body(() => `[${'{},'.repeat(Math.floor(sizeOf(kind) / 3) - 1)}{}]`);
      return { path: '/webhooks/hubspot', headers: hubspotSigned(b, true), body: b };
    }
    case 'salesforce-many-elements': {
      const b = body(() => envelope('<a/>'.repeat(MB / 4 - 100)));
      return {
        path: `/webhooks/salesforce?token=${SANDBOX_OUTBOUND_TOKEN}`,
        headers: { 'content-type': 'text/xml' },
        body: b,
      };
    }
    case 'salesforce-deep-xml': {
      // Under the element cap (10,000), each level's name long enough to make ~1 MB.
      const name = `n${'a'.repeat(50)}`;
      const b = body(() => envelope(levels(9000, `<${name}>`, `</${name}>`)));
      return {
        path: `/webhooks/salesforce?token=${SANDBOX_OUTBOUND_TOKEN}`,
        headers: { 'content-type': 'text/xml' },
        body: b,
      };
    }
    case 'provider-bad-signature': {
      const b = body(() => JSON.stringify({ type: 'row.updated', data: { pad: 'x'.repeat(MB - 100) } }));
      const ts = String(Math.floor(Date.now() / 1000));
      return {
        path: '/webhooks/buyer-intel',
        headers: {
          ...json,
          'webhook-id': `msg_${randomUUID()}`,
          'webhook-timestamp': ts,
          'webhook-signature': `v1,${'A'.repeat(43)}=`,
        },
        body: b,
      };
    }
    case 'api-deep-json': {
      const b = body(() => levels(MB / 2, '[', ']'));
      return { path: '/api/refresh', headers: { ...json, authorization: `Bearer ${t.apiKey}` }, body: b };
    }
    case 'admin-post': {
      const b = body(() => levels(MB / 2, '{"a":', '}').replace(/\{"a":\}/, '{"a":1}'));
      const basic = Buffer.from(`${t.admin.username}:${t.admin.password}`).toString('base64');
      return { path: '/admin/api/retry', headers: { ...json, authorization: `Basic ${basic}` }, body: b };
    }
  }
}

type ToChild =
  | { type: 'load'; kind: Kind; seconds: number; target: Target }
  | { type: 'start' }
  | { type: 'stop' }
  | { type: 'exit' };

/** --load: ten requests of the kind in flight for `seconds`; answers the statuses seen. */
async function loadRole(): Promise<void> {
  const bodies = new Map<Kind, string>();
  process.on('message', async (m: ToChild) => {
    if (m.type === 'exit') return void process.disconnect?.();
    if (m.type !== 'load') return;
    const statuses: Record<string, number> = {};
    const until = Date.now() + m.seconds * 1000;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (Date.now() < until) {
          const r = hostile(m.kind, m.target, bodies);
          const status = await fetch(`${m.target.base}${r.path}`, {
            method: 'POST',
            headers: r.headers,
            body: r.body,
          })
            .then(async (res) => {
              await res.arrayBuffer().catch(() => undefined);
              return String(res.status);
            })
            .catch(() => 'reset');
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    );
    process.send?.({ type: 'done', statuses });
  });
  process.send?.({ type: 'ready' });
}

/** --probe: GET /healthz every 10 ms between start and stop; answers the latencies in ms. */
async function probeRole(base: string): Promise<void> {
  let running = false;
  let latencies: number[] = [];
  const loop = async () => {
    while (running) {
      const started = performance.now();
      await fetch(`${base}/healthz`)
        .then((r) => r.arrayBuffer())
        .catch(() => undefined);
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  process.on('message', (m: ToChild) => {
    if (m.type === 'exit') return void process.disconnect?.();
    if (m.type === 'start') {
      latencies = [];
      running = true;
      void loop();
    }
    if (m.type === 'stop') {
      running = false;
      process.send?.({ type: 'latencies', latencies });
    }
  });
  process.send?.({ type: 'ready' });
}

// --emulators: the three emulators, in a process of their own (the provider's data set is a large
// heap whose collections would show as the service's event-loop blocks); answers their endpoints.
async function emulatorsRole(): Promise<void> {
  const [bi, hs, sf] = await Promise.all([
    startBuyerIntelSandbox({ dataset: buildDataset({ seed: 42 }), rateLimit: false }),
    startHubSpotSandbox({ rateLimits: false }),
    startSalesforceSandbox({}),
  ]);
  const pick = <T extends object, K extends keyof T>(o: T, keys: K[]) =>
    Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;
  const endpoints: SandboxEndpoints = {
    buyerIntel: pick(bi, ['url', 'token']),
    hubspot: pick(hs, ['url', 'accessToken', 'portalId', 'clientSecret', 'appId']),
    salesforce: pick(sf, ['url', 'orgId', 'clientId', 'clientSecret', 'accessToken', 'refreshToken']),
  };
  process.on('message', async (m: ToChild) => {
    if (m.type !== 'exit') return;
    await Promise.all([bi.close(), hs.close(), sf.close()]);
    process.disconnect?.();
  });
  process.send?.({ type: 'ready', endpoints });
}

function child(args: string[]): Promise<ChildProcess> {
  const c = fork(new URL(import.meta.url), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    c.once('error', reject);
    c.once('message', () => resolve(c));
  });
}
const reply = <T>(c: ChildProcess, message: ToChild): Promise<T> =>
  new Promise((resolve) => {
    c.once('message', (m) => resolve(m as T));
    c.send(message);
  });

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

async function main(): Promise<void> {
  const flag = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i < 0 ? undefined : process.argv[i + 1];
  };
  const seconds = Number(flag('seconds') ?? 3);
  const kinds = (flag('kinds')?.split(',') ?? KINDS) as Kind[];
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bis-bench-hostile-${randomUUID().slice(0, 8)}`;
  const emulators = fork(new URL(import.meta.url), ['--emulators'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const endpoints = await new Promise<SandboxEndpoints>((resolve, reject) => {
    emulators.once('error', reject);
    emulators.once('message', (m) => resolve((m as { endpoints: SandboxEndpoints }).endpoints));
  });
  const hs = endpoints.hubspot as HubSpotEndpoint | undefined;
  const sf = endpoints.salesforce as SalesforceEndpoint | undefined;
  if (!hs || !sf) throw new Error('the emulators did not start');
  const db = await benchDatabase(process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL);
  const apiKey = randomBytes(16).toString('hex');
  const admin = { username: 'ops', password: randomBytes(12).toString('hex') };
  const base = sandboxSettings(endpoints, { redisUrl, prefix });
  const service = createService({
    ...base,
    buyerIntel: {
      ...base.buyerIntel,
      webhooks: { secrets: [`whsec_${randomBytes(24).toString('base64')}`], publicKeys: [] },
    },
    database: db.settings,
    api: { apiKeys: [apiKey] },
    admin,
  });
  await service.store.open();
  const http = await service.startHttp(0, '127.0.0.1');
  const target: Target = { base: http.url, hubspotSecret: hs.clientSecret, orgId: sf.orgId, apiKey, admin };
  const [load, probe] = await Promise.all([child(['--load']), child(['--probe', http.url])]);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const rows: Record<string, unknown>[] = [];
  try {
    for (const kind of ['idle', ...kinds] as const) {
      delay.reset();
      const cpu = process.cpuUsage();
      probe.send({ type: 'start' });
      const statuses =
        kind === 'idle'
          ? await new Promise<Record<string, number>>((r) => setTimeout(() => r({}), seconds * 1000))
          : (await reply<{ statuses: Record<string, number> }>(load, { type: 'load', kind, seconds, target }))
              .statuses;
      const { latencies } = await reply<{ latencies: number[] }>(probe, { type: 'stop' });
      const used = process.cpuUsage(cpu);
      const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
      rows.push({
        kind,
        healthzP50Ms: Number(pct(latencies, 50).toFixed(1)),
        healthzP90Ms: Number(pct(latencies, 90).toFixed(1)),
        healthzMaxMs: Number(Math.max(...latencies).toFixed(1)),
        loopMaxBlockMs: Number((delay.max / 1e6).toFixed(1)),
        loopP99Ms: Number((delay.percentile(99) / 1e6).toFixed(1)),
        hostileRequests: requests,
        // The service's CPU (this process: the emulators sit idle) per hostile request: unlike the
        // loop's delays, not inflated by other processes on a shared machine (the /healthz probes' share
        // is in the idle row).
        cpuMsPerRequest: requests ? Number(((used.user + used.system) / 1000 / requests).toFixed(2)) : null,
        answers: Object.entries(statuses)
          .map(([s, n]) => `${s}×${n}`)
          .join(' '),
      });
      console.log(JSON.stringify(rows.at(-1)));
    }
  } finally {
    delay.disable();
    for (const c of [load, probe, emulators]) c.send({ type: 'exit' });
    await service.close();
    await db.drop();
    await deletePrefix(redisUrl, prefix);
  }
  console.table(rows);
}

const role = process.argv[2];
if (role === '--load') void loadRole();
else if (role === '--emulators') void emulatorsRole();
else if (role === '--probe') void probeRole(process.argv[3] ?? '');
else
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
