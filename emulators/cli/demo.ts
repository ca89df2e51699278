// `buyer-intel-sync demo`: the whole product on the local sandboxes, in one process. A person creates
// 20 public-sector companies in the HubSpot emulator; its webhooks reach our receiver, jobs flow through
// BullMQ on real Redis, the worker resolves each company against the Buyer Intelligence sandbox and
// writes fields and notes back through the real @hubspot/api-client. Prints what happened and exits.
import { randomUUID } from 'node:crypto';
import { isChunk } from '../../queues/enrich-queue.ts';
import { nodesOf, redisClient } from '../../queues/redis-url.ts';
import { BUYER_FIELD_LABELS } from '../../src/buyer-intel/fields.ts';
import type { Command } from '../../src/cli/command.ts';
import { renderRecords, renderTable, wrapParagraph } from '../../src/cli/table.ts';
import type { EnrichResult } from '../../src/enrich/types.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import { createService } from '../../src/service/runtime.ts';
import { startBuyerIntelSandbox } from '../buyer-intel/server.ts';
import { startHubSpotSandbox } from '../hubspot/server.ts';
import { redisForDemo } from '../private-redis.ts';
import { startSalesforceSandbox } from '../salesforce/server.ts';
import { SANDBOX_OUTBOUND_TOKEN, SERVICE_PROVIDER_RATE, sandboxSettings } from '../settings.ts';
import { addDemoOwners, DEMO_FOLLOW_UPS, showFollowUps } from './demo-follow-ups.ts';
import { showOwnerDigest, startOwnerDigestStandIns } from './demo-owner-digest.ts';

/** What sales teams really have in their CRM: tidy names, sloppy names, and names that fit several buyers. */
export const DEMO_COMPANIES: { name: string; state?: string; domain?: string }[] = [
  { name: 'City of Austin', state: 'TX', domain: 'austintexas.gov' },
  { name: 'Austin ISD', state: 'Texas' },
  { name: 'Travis County', state: 'TX' },
  { name: 'UT Austin', state: 'TX', domain: 'utexas.edu' },
  { name: 'Austin', state: 'TX' },
  { name: 'City of Austin', state: 'MN' },
  { name: 'Springfield' },
  { name: 'City of Springfield', state: 'IL' },
  { name: 'Springfield Public Schools', state: 'MA' },
  { name: 'Portland', state: 'OR' },
  { name: 'City of Portland', state: 'Maine' },
  { name: 'Columbus', state: 'OH' },
  { name: 'Kansas City', state: 'MO' },
  { name: 'Kansas City', state: 'KS' },
  { name: 'Austin Police Department', state: 'TX' },
  { name: 'Austin Fire Dept', state: 'TX' },
  { name: 'Austin Community College', state: 'TX' },
  { name: 'Springfield', state: 'MO' },
  { name: 'Zenith Quantum Holdings LLC', state: 'DE' },
  { name: 'Columbus', state: 'GA' },
];

/** A few of the same kinds of names, as Salesforce Accounts (Name, BillingState, Website). */
export const DEMO_ACCOUNTS: { name: string; state?: string; website?: string }[] = [
  { name: 'City of Austin', state: 'TX', website: 'https://www.austintexas.gov' },
  { name: 'Austin ISD', state: 'TX' },
  { name: 'Travis County', state: 'Texas' },
  { name: 'City of Springfield', state: 'IL' },
  { name: 'Springfield' },
  { name: 'Austin Police Department', state: 'TX' },
  { name: 'Kansas City', state: 'KS' },
  { name: 'Zenith Quantum Holdings LLC', state: 'DE' },
];

export const demoCommand: Command = {
  name: 'demo',
  summary: 'Run the whole product on the local sandboxes and print what it did',
  usage: `buyer-intel-sync demo

Starts the Buyer Intelligence sandbox, the HubSpot and Salesforce emulators, the webhook receivers and
a worker in one process; creates ${DEMO_COMPANIES.length} companies in HubSpot and ${DEMO_ACCOUNTS.length} Accounts in
Salesforce as a person would; prints what enrichment did; exits.
Uses the Redis at REDIS_URL (default redis://127.0.0.1:6379), or starts a private redis-server.`,
  options: {},
  async run() {
    const redis = await redisForDemo(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    // The provider's limit as the sandbox enforces it (10/s, burst 1), and the service's own pace
    // settings against it: the demo shows the product as a customer gets it.
    const bi = await startBuyerIntelSandbox({});
    const hs = await startHubSpotSandbox({});
    const sf = await startSalesforceSandbox({});
    // A hash tag, so the demo runs on a Redis Cluster too (REDIS_URL ?cluster=true).
    const prefix = `{bis-demo-${randomUUID().slice(0, 8)}}`;
    const standIns = await startOwnerDigestStandIns();
    const service = createService({
      ...sandboxSettings(
        { buyerIntel: bi, hubspot: hs, salesforce: sf },
        { redisUrl: redis.url, prefix },
        {
          worker: { concurrency: 10 },
          buyerIntel: { ...SERVICE_PROVIDER_RATE },
        },
      ),
      digest: standIns.digest,
      followUps: DEMO_FOLLOW_UPS,
    });
    try {
      const out = (line = '') => process.stdout.write(`${line}\n`);
      out(`Buyer Intelligence sandbox  ${bi.url}`);
      out(`HubSpot emulator            ${hs.url}  (portal ${hs.portalId})`);
      out(`Salesforce emulator         ${sf.url}  (org ${sf.orgId})`);
      out(`Redis                       ${redis.url}${redis.private ? '  (private, for this demo)' : ''}`);

      const setup = await service
        .connector('hubspot', String(hs.portalId))
        .ensureFields(fieldDefinitions(DEFAULT_MAPPING));
      out(`setup: created ${setup.created.length} HubSpot properties in group "Buyer Intelligence"`);
      const sfSetup = await service
        .connector('salesforce', sf.orgId)
        .ensureFields(fieldDefinitions(DEFAULT_MAPPING));
      out(`setup: created ${sfSetup.created.length} Salesforce custom fields (Metadata API)`);

      const http = await service.startHttp(0, '127.0.0.1');
      service.startWorker();
      hs.webhooks.configure({ targetUrl: `${http.url}/webhooks/hubspot`, propertyChanges: [] });
      sf.outbound.configure({
        endpointUrl: `${http.url}/webhooks/salesforce?token=${SANDBOX_OUTBOUND_TOKEN}`,
        batchWindowMs: 50,
      });
      out(
        `receiver: ${http.url}/webhooks/hubspot — creating ${DEMO_COMPANIES.length} companies as a person would...`,
      );
      out();

      // The first company and Account have an owner (a rep); the others none.
      const owners = addDemoOwners(hs, sf);
      const ids = DEMO_COMPANIES.map(
        (c, i) =>
          hs.store.createCompany(
            {
              name: c.name,
              ...(c.state ? { state: c.state } : {}),
              ...(c.domain ? { domain: c.domain } : {}),
              ...(i === 0 ? { hubspot_owner_id: owners.hubspot } : {}),
            },
            { source: 'CRM_UI' },
          ).id,
      );

      const sfIds = DEMO_ACCOUNTS.map(
        (a, i) =>
          sf.store.create('Account', {
            ...(i === 0 ? { OwnerId: owners.salesforce } : {}),
            Name: a.name,
            ...(a.state ? { BillingState: a.state } : {}),
            ...(a.website ? { Website: a.website } : {}),
          }).id,
      );

      const results = await waitForResults(service.queue, [...ids, ...sfIds], 60_000);
      const row = (name: string, state: string | undefined, id: string, notes: number) => {
        const r = results.get(id);
        return {
          account: `${name}${state ? `, ${state}` : ''}`,
          'matched buyer': r?.match.buyerName
            ? `${r.match.buyerName}`
            : r?.status === 'needs_review'
              ? `? ${r.match.candidates.length} candidates`
              : '—',
          confidence: r?.match.confidence?.toFixed(2) ?? null,
          status: r ? r.status : 'failed',
          'fields written': r ? r.fields.filter((f) => f.decision === 'write').length : 0,
          notes,
        };
      };
      const rows = DEMO_COMPANIES.map((c, i) =>
        row(
          c.name,
          c.state,
          ids[i] ?? '',
          hs.store.notesOf(ids[i] ?? '').length +
            hs.store.associations('companies', ids[i] ?? '', 'tasks').length,
        ),
      );
      out('HubSpot companies (notes = signal notes, or the owner’s tasks, on the company):');
      out(renderRecords(rows));
      const tasksOf = (id: string) =>
        sf.store.list('Task').filter((t) => t.values.get('WhatId') === id).length;
      const sfRows = DEMO_ACCOUNTS.map((a, i) =>
        row(a.name, a.state, sfIds[i] ?? '', tasksOf(sfIds[i] ?? '')),
      );
      out('Salesforce Accounts (notes = signal Tasks on the Account):');
      out(renderRecords(sfRows));

      const sample = [...results.values()].find(
        (r) => r.status === 'enriched' && r.fields.some((f) => f.decision === 'write'),
      );
      if (sample) {
        out();
        out(
          wrapParagraph(
            `e.g. ${sample.account.name} → ${sample.match.buyerName}: ${sample.match.explanation}`,
          ),
        );
        out(
          renderTable(
            sample.fields
              .filter((x) => x.decision === 'write')
              .slice(0, 6)
              .map((f) => [BUYER_FIELD_LABELS[f.attribute], f.property, f.new]),
            { head: ['buyer field', 'CRM property', 'value written'] },
          ),
        );
      }
      const review = [...results.values()].find((r) => r.status === 'needs_review');
      if (review) {
        out(wrapParagraph(`needs review: "${review.account.name}" — ${review.match.explanation}`));
        out(
          renderTable(
            review.match.candidates.slice(0, 3).map((c) => [c.score.toFixed(2), c.name, c.stateCode, c.type]),
            { head: ['score', 'candidate', 'state', 'type'] },
          ),
        );
      }
      await showFollowUps({
        service,
        bi,
        hs,
        sf,
        hubspotId: ids[0] ?? '',
        salesforceId: sfIds[0] ?? '',
        owners,
        out,
      });
      out();
      const perAccount = (calls: number, accounts: number, noun: string) =>
        `${(calls / accounts).toFixed(1)} per ${noun}`;
      out('upstream calls (setup included):');
      out(
        renderTable(
          [
            [
              'Buyer Intelligence',
              bi.stats.count(),
              perAccount(bi.stats.count(), ids.length + sfIds.length, 'account'),
            ],
            ['HubSpot', hs.stats.count(), perAccount(hs.stats.count(), ids.length, 'company')],
            ['Salesforce', sf.stats.count(), perAccount(sf.stats.count(), sfIds.length, 'Account')],
          ],
          { head: ['API', 'calls', 'average'] },
        ),
      );
      await showOwnerDigest(out, { service, hs, sf, companies: ids, accounts: sfIds, standIns });
      return [...rows, ...sfRows].every((r) => r.status !== 'failed') ? 0 : 1;
    } finally {
      await service.close();
      await cleanRedis(redis.url, prefix);
      await Promise.all([bi.close(), hs.close(), sf.close(), standIns.close()]);
      await redis.stop();
    }
  },
};

async function waitForResults(
  queue: ReturnType<typeof createService>['queue'],
  accountIds: string[],
  timeoutMs: number,
): Promise<Map<string, EnrichResult>> {
  const wanted = new Set(accountIds);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const jobs = await queue.getJobs(['completed', 'failed']);
    const results = new Map<string, EnrichResult>();
    const failed = new Set<string>();
    for (const job of jobs) {
      const { data } = job;
      if (isChunk(data) || !wanted.has(data.accountId)) continue;
      if (job.returnvalue) results.set(data.accountId, job.returnvalue as EnrichResult);
      else if (job.failedReason && job.attemptsMade >= (job.opts.attempts ?? 1)) failed.add(data.accountId);
    }
    if (results.size + failed.size >= wanted.size || Date.now() > deadline) return results;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function cleanRedis(url: string, prefix: string): Promise<void> {
  const redis = redisClient(url, { maxRetriesPerRequest: 1 });
  try {
    await redis.ping(); // a cluster client knows its nodes once connected
    for (const node of nodesOf(redis)) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}
