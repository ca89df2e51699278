// `buyer-intel-sync undo` against a 300-account run on the HubSpot and the Salesforce
// emulators (ContentNotes), the run enriched by the service's own pipeline into a database the CLI
// shares (test-database.ts), one account then edited by a person: the dry run's plan; the undo interrupted midway (HubSpot:
// SIGKILL while a batch is in flight; Salesforce: Ctrl-C, which stops after the batch) and run again,
// which resumes the same undo run and restores every account once, keeps the person's value and
// leaves none of our notes; a rate limit or a passing failure on the way is waited out or retried; a
// second undo changes nothing and writes nothing; and bad usage exits 2. The interrupted undo is the
// real binary (a signal stops it); the other runs go through the CLI's own `main` in this process
// (runCliInProcess), which a real process would tell nothing more about.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SalesforceConfig } from '../../connectors/salesforce/config.ts';
import { defaultFieldName } from '../../connectors/salesforce/fields.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import type { CallStats } from '../../emulators/shared/faults.ts';
import { enrichAccount } from '../../src/enrich/pipeline.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import { Store } from '../../src/store/store.ts';
import { sharedDataset, startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { CLI_PATH, runCliInProcess, sandboxCliEnv } from '../helpers/cli.ts';
import { eventually } from '../helpers/poll.ts';
import { closeService, createTestService } from '../helpers/service.ts';
import { sharedDatabase, type TestDatabase } from '../helpers/test-database.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ACCOUNTS = 300;
const POPULATION = DEFAULT_MAPPING.fields.find((f) => f.attribute === 'Population')?.property ?? '';
const WRITES = /update|archive|delete|create/i;

let bi: RunningBuyerIntelSandbox;
beforeAll(async () => {
  bi = await startSandbox();
});
afterAll(async () => {
  await bi?.close();
});

interface Crm {
  kind: 'hubspot' | 'salesforce';
  env: Record<string, string>;
  endpoints: Parameters<typeof sandboxSettings>[0];
  notes?: 'content-note';
  faults: { settings: { latencyMs: number }; inject(f: object): void };
  stats: CallStats;
  create(name: string, state: string, buyerId: string): string;
  edit(id: string, field: string, value: string): void;
  read(id: string, field: string): string | null;
  noteCount(id: string): number;
  close(): Promise<void>;
}

async function hubspot(): Promise<Crm> {
  // HubSpot's own limit would make enriching 500 accounts take minutes: the undo's budget is ours.
  const hs: RunningHubSpotSandbox = await startHubSpotSandbox({ rateLimits: false });
  return {
    kind: 'hubspot',
    env: { ...sandboxCliEnv(bi, hs), HUBSPOT_CALLS_PER_10S: '190' },
    endpoints: { buyerIntel: bi, hubspot: hs },
    faults: hs.faults,
    stats: hs.stats,
    create: (name, state, buyerId) =>
      hs.store.createCompany({ name, state, [P.buyerId]: buyerId }, { source: 'CRM_UI' }).id,
    edit: (id, field, value) => void hs.store.updateCompany(id, { [field]: value }, { source: 'CRM_UI' }),
    read: (id, field) => hs.store.getCompany(id)?.values.get(field) ?? null,
    noteCount: (id) => hs.store.notesOf(id).filter((n) => !n.archived).length,
    close: () => hs.close(),
  };
}

async function salesforce(): Promise<Crm> {
  const sf: RunningSalesforceSandbox = await startSalesforceSandbox({});
  return {
    kind: 'salesforce',
    env: {
      BUYER_INTEL_BASE_URL: bi.url,
      BUYER_INTEL_TOKEN: bi.token,
      SALESFORCE_INSTANCE_URL: sf.url,
      SALESFORCE_LOGIN_URL: sf.url,
      SALESFORCE_CLIENT_ID: sf.clientId,
      SALESFORCE_CLIENT_SECRET: sf.clientSecret,
      SALESFORCE_REFRESH_TOKEN: sf.refreshToken,
      SALESFORCE_ORG_ID: sf.orgId,
      SALESFORCE_NOTES: 'content-note',
    },
    endpoints: { buyerIntel: bi, salesforce: sf },
    notes: 'content-note',
    faults: sf.faults,
    stats: sf.stats,
    create: (name, state, buyerId) =>
      sf.store.create('Account', { Name: name, BillingState: state, [defaultFieldName(P.buyerId)]: buyerId })
        .id,
    edit: (id, field, value) => void sf.store.update('Account', id, { [defaultFieldName(field)]: value }),
    read: (id, field) => {
      const v = sf.store.find('Account', id).values.get(defaultFieldName(field));
      return v === null || v === undefined ? null : String(v);
    },
    noteCount: (id) =>
      sf.store.list('ContentDocumentLink').filter((l) => l.values.get('LinkedEntityId') === id).length,
    close: () => sf.close(),
  };
}

const writeCalls = (stats: CallStats) =>
  Object.entries(stats.toJSON())
    .filter(([op]) => WRITES.test(op))
    .reduce((n, [, byStatus]) => n + Object.values(byStatus).reduce((a, b) => a + b, 0), 0);

for (const [make, stop] of [
  [hubspot, 'SIGKILL'],
  [salesforce, 'SIGINT'],
] as const) {
  describe(`buyer-intel-sync undo of a ${ACCOUNTS}-account run (${make.name}, ${stop} midway)`, () => {
    const prefix = `test-cli-undo-${randomUUID().slice(0, 8)}`;
    let crm: Crm;
    let database: TestDatabase;
    let runId: string;
    let undoRunId: string;
    const ids: string[] = [];
    let edited: string;
    /** Accounts we wrote a population into. */
    let populated: number;
    let written: { fields: number; notes: number };

    const env = () => ({ ...crm.env, REDIS_URL, REDIS_PREFIX: prefix, ...database.env });
    const cli = (args: string[]) => runCliInProcess(args, env());

    beforeAll(async () => {
      crm = await make();
      database = await sharedDatabase();
      const settings = sandboxSettings(
        crm.endpoints,
        { redisUrl: REDIS_URL, prefix },
        { signals: { period: 'LastTwoYears', maxNotesPerRun: 2 }, worker: { writeBatchWaitMs: 20 } },
      );
      const sfConfig = settings.crms.salesforce as SalesforceConfig | undefined;
      if (sfConfig && crm.notes) sfConfig.app.notes = crm.notes;
      const service = await createTestService({ ...settings, database: database.settings });
      try {
        const tenant = service.tenantsOf(crm.kind)[0] ?? '';
        await service.connector(crm.kind, tenant).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
        const buyers = sharedDataset().buyers.filter((b) => b.stateCode);
        for (let i = 0; i < ACCOUNTS; i++) {
          const buyer = buyers[i * 7];
          if (!buyer) throw new Error('not enough buyers in the sandbox');
          ids.push(crm.create(buyer.name, buyer.stateCode ?? '', buyer.id));
        }
        const { runs, writes } = await service.store.open();
        const run = await runs.create({
          kind: 'backfill',
          label: `backfill of ${ACCOUNTS} ${crm.kind} accounts`,
        });
        runId = run.id;
        // The pipeline itself, as the workers run a backfill's jobs: 25 at a time.
        let next = 0;
        await Promise.all(
          Array.from({ length: 25 }, async () => {
            while (next < ids.length) {
              const i = next++;
              const result = await enrichAccount(
                service.deps,
                { crm: crm.kind, tenant, accountId: ids[i] ?? '' },
                { job: { runId, jobId: `backfill-${i}`, trigger: 'backfill' } },
              );
              if (result.status !== 'enriched') throw new Error(`account ${i} was not enriched`);
            }
          }),
        );
        await runs.finish(runId, { queued: ACCOUNTS });
        const changes = await writes.runChanges(runId);
        written = { fields: changes.fieldsWritten, notes: changes.notesCreated };
      } finally {
        await service.close();
      }
      expect(written.notes).toBeGreaterThan(ACCOUNTS / 2);
      // A person corrects one account's population after the backfill.
      const withPopulation = ids.filter((id) => crm.read(id, POPULATION) !== null);
      populated = withPopulation.length;
      edited = withPopulation[3] ?? '';
      crm.edit(edited, POPULATION, '424242');
    }, 60_000);

    afterAll(async () => {
      await closeService(undefined, REDIS_URL, prefix);
      await crm?.close();
    });

    it('--dry-run prints what would go back and what would be kept, per field and per account, and writes nothing', async () => {
      const before = writeCalls(crm.stats);
      const dry = await cli(['undo', '--run', runId, '--dry-run']);
      expect(dry.code).toBe(0);
      const out = dry.stdout;
      const prose = out.replace(/\s+/g, ' ');
      expect(out).toContain(
        `DRY RUN — nothing written. Undo of run ${runId} (backfill: backfill of ${ACCOUNTS}`,
      );
      expect(prose).toContain(
        `${ACCOUNTS} accounts: ${ACCOUNTS} with something to undo. Fields: ${written.fields - 1} to restore, 1 kept (a person changed them), 0 already as before. Notes: ${written.notes} to remove.`,
      );
      // The field table: the person's edit is the one value kept.
      expect(out).toMatch(new RegExp(`│ ${POPULATION} +│ +${populated - 1} │ +1 │ +0 │`));
      // Each account: its fields now → after the undo, and its notes.
      expect(out.match(new RegExp(`^${crm.kind} account `, 'gm'))).toHaveLength(ACCOUNTS);
      expect(out.match(/^ {2}restore {2}buyer_intel_status +enriched → ∅$/gm)).toHaveLength(ACCOUNTS);
      expect(out).toMatch(
        new RegExp(`^ {2}keep {5}${POPULATION} +424242 \\(a person changed it; we wrote \\d+\\)$`, 'm'),
      );
      expect(out.match(/^ {2}remove {3}\d+ notes?: /gm)?.length).toBeGreaterThan(ACCOUNTS / 2);
      expect(writeCalls(crm.stats)).toBe(before);
      expect(crm.read(ids[0] ?? '', P.status)).toBe('enriched');
    }, 60_000);

    it(`resumes after ${stop} midway: every account restored once, the person's value kept, no note left`, async () => {
      crm.stats.reset();
      crm.faults.settings.latencyMs = 30; // slow calls, so the stop lands midway
      const restored = () => ids.filter((id) => crm.read(id, P.status) === null).length;
      const child: ChildProcess = spawn(process.execPath, [CLI_PATH, 'undo', '--run', runId, '--yes'], {
        env: { PATH: process.env.PATH ?? '', ...env() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout?.on('data', (d) => {
        stdout += d;
      });
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      await eventually(() => restored() >= 120, '120 accounts restored', {
        timeoutMs: 30_000,
        intervalMs: 5,
      });
      const atStop = restored();
      child.kill(stop);
      const code = await exited;
      expect(atStop).toBeGreaterThanOrEqual(120);
      expect(atStop).toBeLessThan(ACCOUNTS);
      if (stop === 'SIGINT') {
        expect(code).toBe(130);
        expect(stdout).toContain('Interrupted: run the same command to resume undo run');
      }
      expect(restored()).toBeLessThan(ACCOUNTS);
      crm.faults.settings.latencyMs = 0;
      // A rate limit (HubSpot's 429) or a passing failure (Salesforce's UNKNOWN_EXCEPTION) on the way is
      // waited out or retried, like any write's.
      const fault = crm.kind === 'hubspot' ? 429 : 400;
      crm.faults.inject({ kind: 'status', status: fault, retryAfterSeconds: 1, match: updateOperation(crm) });

      const resumed = await cli(['undo', '--run', runId, '--yes']);
      expect(resumed.code).toBe(0);
      const id = /^Resumed undo run (\d+)\./m.exec(resumed.stdout)?.[1];
      expect(id).toBeDefined();
      undoRunId = id ?? '';
      expect(resumed.stdout).toContain(`Undo run ${undoRunId}: undo of run ${runId}`);
      expect(resumed.stdout.replace(/\s+/g, ' ')).toContain(
        `${ACCOUNTS} accounts done of ${ACCOUNTS}: ${written.fields - 1} fields restored, 1 kept (a person changed them), 0 already as before; ${written.notes} notes removed; 0 failed.`,
      );
      expect(resumed.stdout).toMatch(new RegExp(`│ ${edited} +│ ${POPULATION} +│ +424242 │ ∅ +│`));
      expect(resumed.stderr.trim().split('\n').at(-1)).toMatch(
        new RegExp(`^undo: ${ACCOUNTS}/${ACCOUNTS} accounts, ${written.fields - 1} fields restored, 1 kept`),
      );
      expect(crm.stats.count(updateOperation(crm), fault)).toBe(1);

      for (const account of ids) {
        expect([account, crm.read(account, P.status), crm.noteCount(account)]).toEqual([account, null, 0]);
        expect(crm.read(account, POPULATION)).toBe(account === edited ? '424242' : null);
      }

      // On the record: one restoring write per account and field, across both processes; every note.
      const store = new Store(database.settings);
      try {
        const { writes, runs } = await store.open();
        const seen = new Set<string>();
        let restoring = 0;
        let after: string | undefined;
        do {
          const page = await writes.ofRun(undoRunId, { limit: 500, after });
          for (const e of page.events)
            if (e.type === 'field' && e.decision === 'undo' && e.result === 'ok') {
              restoring++;
              seen.add(`${e.accountId}/${e.field}`);
            }
          after = page.next ?? undefined;
        } while (after);
        expect(restoring).toBe(written.fields - 1);
        expect(seen.size).toBe(restoring);
        expect(await writes.runChanges(undoRunId)).toMatchObject({
          accounts: ACCOUNTS,
          fieldsWritten: written.fields - 1,
          fieldsSkipped: 1,
          notesRemoved: written.notes,
        });
        const run = await runs.get(undoRunId);
        expect(run?.finishedAt).not.toBeNull();
        expect(run?.counts).toMatchObject({ accounts: ACCOUNTS, failed: 0 });
      } finally {
        await store.close();
      }
    }, 60_000);

    it('a second undo of the run changes nothing and sends no write; bad usage exits 2', async () => {
      crm.stats.reset();
      const again = await cli(['undo', '--run', runId, '--yes']);
      expect(again.code).toBe(0);
      expect(again.stdout.replace(/\s+/g, ' ')).toContain(
        `${ACCOUNTS} accounts done of ${ACCOUNTS}: 0 fields restored, 1 kept (a person changed them), ${written.fields - 1} already as before; 0 notes removed; 0 failed.`,
      );
      expect(writeCalls(crm.stats)).toBe(0);
      expect(again.stdout).not.toContain(`Undo run ${undoRunId}:`);

      const bare = await cli(['undo', '--run', runId]);
      expect([bare.code, bare.stderr]).toEqual([
        2,
        'buyer-intel-sync undo: undo writes to the CRM: add --yes (see first what it would change with --dry-run) (see buyer-intel-sync undo --help)\n',
      ]);
      expect((await cli(['undo', '--run', 'x', '--dry-run'])).code).toBe(2);
      expect((await cli(['undo', '--run', runId, '--job', 'j', '--dry-run'])).code).toBe(2);
      expect((await cli(['undo', '--account', '1', '--dry-run'])).code).toBe(2);
      const unknown = await cli(['undo', '--run', '99999999', '--dry-run']);
      expect([unknown.code, unknown.stderr]).toEqual([1, 'buyer-intel-sync undo: no run 99999999\n']);
    }, 60_000);
  });
}

function updateOperation(crm: Crm): string {
  return crm.kind === 'hubspot' ? 'crm.companies.batchApi.update' : 'composite.sobjects.update';
}
