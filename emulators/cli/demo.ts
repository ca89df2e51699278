// `buyer-intel-sync demo`: the whole product on the local sandboxes, in one process. A person creates
// public-sector accounts in every registered CRM emulator (emulators/registry.ts): 20 companies in
// HubSpot, 8 Accounts in Salesforce; their events reach our receivers, jobs flow through BullMQ on real
// Redis, the worker resolves each account against the Buyer Intelligence sandbox and writes fields and
// notes back through each CRM's real client. Prints what happened and exits.
import { randomUUID } from 'node:crypto';
import { crmOf } from '../../connectors/registry.ts';
import { isChunk } from '../../queues/enrich-queue.ts';
import { nodesOf, redisClient } from '../../queues/redis-url.ts';
import { BUYER_FIELD_LABELS } from '../../src/buyer-intel/fields.ts';
import type { Command } from '../../src/cli/command.ts';
import { requireRedis } from '../../src/cli/redis-check.ts';
import { renderRecords, renderTable, wrapParagraph } from '../../src/cli/table.ts';
import type { EnrichResult } from '../../src/enrich/types.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import { createService } from '../../src/service/runtime.ts';
import { startBuyerIntelSandbox } from '../buyer-intel/server.ts';
import { redisForDemo } from '../private-redis.ts';
import { type AnyEmulator, EMULATORS } from '../registry.ts';
import { SERVICE_PROVIDER_RATE, sandboxSettings } from '../settings.ts';
import { addDemoOwners, DEMO_FOLLOW_UPS, type DemoCrm, showFollowUps } from './demo-follow-ups.ts';
import { showOwnerDigest, startOwnerDigestStandIns } from './demo-owner-digest.ts';

const accountCount = (emulators: readonly AnyEmulator[]) =>
  emulators.map((e) => `${e.demoAccounts.length} in the ${e.label}`).join(', ');

export const demoCommand: Command = {
  name: 'demo',
  summary: 'Run the whole product on the local sandboxes and print what it did',
  get usage() {
    return `buyer-intel-sync demo

Starts the Buyer Intelligence sandbox, every CRM emulator, the webhook receivers and a worker in one
process; creates accounts as a person would (${accountCount(EMULATORS)}); prints what
enrichment did; exits.
Uses the Redis at REDIS_URL (default redis://127.0.0.1:6379), or starts a private redis-server.`;
  },
  options: {},
  run: () => runDemo({ out: (line = '') => process.stdout.write(`${line}\n`) }),
};

/**
 * The demo itself, printing through `out`; `kinds`: only these CRMs' emulators (a test's throwaway CRM
 * alone, say), all registered ones by default. Resolves with the exit code.
 */
export async function runDemo(options: {
  out: (line?: string) => void;
  kinds?: readonly string[];
}): Promise<number> {
  const { out } = options;
  const emulators = EMULATORS.filter((e) => !options.kinds || options.kinds.includes(e.kind));
  // A hash tag, so the demo runs on a Redis Cluster too (REDIS_URL ?cluster=true).
  const prefix = `{bis-demo-${randomUUID().slice(0, 8)}}`;
  const redis = await redisForDemo(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  // The check `start` makes, before anything starts: a cluster node named by a plain URL otherwise
  // ended the demo after ~20 s with a bare "MOVED <slot> <node>" (or, on one node, passed for standalone).
  await requireRedis(redis.url, prefix).catch(async (err: unknown) => {
    await redis.stop();
    throw err;
  });
  // The provider's limit as the sandbox enforces it (10/s, burst 1), and the service's own pace
  // settings against it: the demo shows the product as a customer gets it.
  const bi = await startBuyerIntelSandbox({});
  const crms: DemoCrm[] = [];
  for (const emulator of emulators) {
    const running = await emulator.start();
    crms.push({ emulator, running, tenant: emulator.tenantOf(running), ids: [] });
  }
  const standIns = await startOwnerDigestStandIns();
  const settings = sandboxSettings(
    { buyerIntel: bi, ...Object.fromEntries(crms.map((c) => [c.emulator.kind, c.running])) },
    { redisUrl: redis.url, prefix },
    { worker: { concurrency: 10 }, buyerIntel: { ...SERVICE_PROVIDER_RATE } },
  );
  const service = createService({ ...settings, digest: standIns.digest, followUps: DEMO_FOLLOW_UPS });
  try {
    out(`Buyer Intelligence sandbox  ${bi.url}`);
    for (const crm of crms) {
      const [label = '', where = ''] = crm.emulator.describe(crm.running, '').heading.split(': ');
      out(`${label.padEnd(27)} ${where}`);
    }
    out(`Redis                       ${redis.url}${redis.private ? '  (private, for this demo)' : ''}`);
    for (const crm of crms) {
      const setup = await service
        .connector(crm.emulator.kind, crm.tenant)
        .ensureFields(fieldDefinitions(DEFAULT_MAPPING));
      out(`setup: created ${setup.created.length} fields in ${crmOf(crm.emulator.kind).label}`);
    }

    const http = await service.startHttp(0, '127.0.0.1');
    service.startWorker();
    // Events that come by no HTTP delivery (a CRM's streaming subscription, an in-process CRM's own).
    await service.startChangeEvents();
    for (const crm of crms)
      out(`receiver: ${crm.emulator.sendEventsTo(crm.running, http.url, { batchWindowMs: 50 })}`);
    out('creating accounts as a person would...');
    out();

    // The first account of each CRM has an owner (a rep); the others none.
    const owners = addDemoOwners(crms);
    for (const crm of crms)
      crm.ids = crm.emulator.demoAccounts.map((account, i) =>
        crm.emulator.createAccount(crm.running, account, {
          imported: false,
          ...(i === 0 ? { owner: owners[crm.emulator.kind] ?? '' } : {}),
        }),
      );

    const results = await waitForResults(
      service.queue,
      crms.flatMap((c) => c.ids),
      60_000,
    );
    const tables = crms.map((crm) =>
      crm.emulator.demoAccounts.map((a, i) => {
        const id = crm.ids[i] ?? '';
        const r = results.get(id);
        return {
          account: `${a.name}${a.state ? `, ${a.state}` : ''}`,
          'matched buyer': r?.match.buyerName
            ? `${r.match.buyerName}`
            : r?.status === 'needs_review'
              ? `? ${r.match.candidates.length} candidates`
              : '—',
          confidence: r?.match.confidence?.toFixed(2) ?? null,
          status: r ? r.status : 'failed',
          'fields written': r ? r.fields.filter((f) => f.decision === 'write').length : 0,
          notes: crm.emulator.activityCount(crm.running, id),
        };
      }),
    );
    for (const [i, crm] of crms.entries()) {
      out(crm.emulator.demoHeading);
      out(renderRecords(tables[i] ?? []));
    }

    const sample = [...results.values()].find(
      (r) => r.status === 'enriched' && r.fields.some((f) => f.decision === 'write'),
    );
    if (sample) {
      out();
      out(
        wrapParagraph(`e.g. ${sample.account.name} → ${sample.match.buyerName}: ${sample.match.explanation}`),
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
    await showFollowUps({ service, bi, crms, owners, out });
    out();
    const total = crms.reduce((n, c) => n + c.ids.length, 0);
    const perAccount = (calls: number, accounts: number, noun: string) =>
      `${(calls / Math.max(1, accounts)).toFixed(1)} per ${noun}`;
    out('upstream calls (setup included):');
    out(
      renderTable(
        [
          ['Buyer Intelligence', bi.stats.count(), perAccount(bi.stats.count(), total, 'account')],
          ...crms.map((crm) => {
            const { label, accountNoun } = crmOf(crm.emulator.kind);
            const calls = crm.emulator.calls(crm.running);
            return [label, calls, perAccount(calls, crm.ids.length, accountNoun)];
          }),
        ],
        { head: ['API', 'calls', 'average'] },
      ),
    );
    await showOwnerDigest(out, { service, crms, standIns });
    return tables.flat().every((r) => r.status !== 'failed') ? 0 : 1;
  } finally {
    await service.close();
    await cleanRedis(redis.url, prefix);
    await Promise.all([bi.close(), ...crms.map((c) => c.running.close()), standIns.close()]);
    await redis.stop();
  }
}

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
