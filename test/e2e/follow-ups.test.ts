// Follow-up tasks end to end on HubSpot and on Salesforce (their emulators, real HTTP, real Redis and
// PostgreSQL through the service's embedded store, the worker): every signal on an owned account becomes
// one open task assigned to the account's owner, never a second one across re-enrichments, retries or a
// Redis that lost our ledger; an account without an owner keeps notes; a task a person completes sets
// the provider's row `Actioned` and one they delete sets it `NotInterested`, within one sweep, once;
// the task an undo takes back is removed like a note.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { FOLLOW_UP_SWEEP_JOB } from '../../queues/follow-up-sweep.ts';
import { SIGNAL_FILTER_TYPES } from '../../src/buyer-intel/enums.ts';
import type { EnrichResult } from '../../src/enrich/types.ts';
import type { FollowUpSettings } from '../../src/follow-ups/settings.ts';
import type { Service } from '../../src/service/runtime.ts';
import { clientFor } from '../helpers/buyer-intel-sandbox.ts';
import { completedJob } from '../helpers/service.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

const API_KEY = `key-${randomBytes(16).toString('hex')}`;

/** One task as the CRM holds it, in the CRM's own words. */
interface CrmTask {
  id: string;
  /** Our id for it, as createNotes answered it. */
  noteId: string;
  ownerId: string | null;
  status: string | null;
  priority: string | null;
  due: string | null;
}

interface CrmUnderTest {
  name: string;
  kind: 'hubspot' | 'salesforce';
  /** How the CRM spells a new task's status and the priorities. */
  openStatus: string;
  priorities: string[];
  /** The CRM's emulator, as the test service started it. */
  attach(running: TestService): {
    /** A user of the CRM (both refuse a task for an owner id that names none): the owner accounts get. */
    owner: string;
    create(name: string, state: string, ownerId?: string): string;
    tasks(accountId: string): CrmTask[];
    notes(accountId: string): number;
    complete(task: CrmTask): void;
    remove(task: CrmTask): void;
  };
}

const hubspot: CrmUnderTest = {
  name: 'HubSpot',
  kind: 'hubspot',
  openStatus: 'NOT_STARTED',
  priorities: ['HIGH', 'MEDIUM', 'LOW'],
  attach({ hs }) {
    const tasksOf = (id: string): CrmTask[] =>
      hs.store.associations('companies', id, 'tasks').map(({ toId }) => {
        const value = (p: string) => hs.store.get('tasks', toId)?.values.get(p) ?? null;
        return {
          id: toId,
          noteId: `task:${toId}`,
          ownerId: value('hubspot_owner_id'),
          status: value('hs_task_status'),
          priority: value('hs_task_priority'),
          due: value('hs_timestamp'),
        };
      });
    return {
      owner: hs.store.owners.add({ email: 'owen.price@rep.example', firstName: 'Owen', lastName: 'Price' })
        .id,
      create: (name, state, ownerId) =>
        hs.store.createCompany(
          { name, state, ...(ownerId ? { hubspot_owner_id: ownerId } : {}) },
          { source: 'CRM_UI' },
        ).id,
      tasks: tasksOf,
      notes: (id) => hs.store.notesOf(id).length,
      complete: (task) =>
        void hs.store.update('tasks', task.id, { hs_task_status: 'COMPLETED' }, { source: 'CRM_UI' }),
      remove: (task) => void hs.store.archive('tasks', task.id),
    };
  },
};

const salesforce: CrmUnderTest = {
  name: 'Salesforce',
  kind: 'salesforce',
  openStatus: 'Not Started',
  priorities: ['High', 'Normal', 'Low'],
  attach({ sf }) {
    if (!sf) throw new Error('the Salesforce emulator is not running');
    const ours = (id: string) => sf.store.list('Task').filter((t) => t.values.get('WhatId') === id);
    return {
      owner: sf.store.create('User', {
        Username: 'owen.price@rep.example',
        Email: 'owen.price@rep.example',
        FirstName: 'Owen',
        LastName: 'Price',
      }).id,
      create: (name, state, ownerId) =>
        sf.store.create('Account', {
          Name: name,
          BillingState: state,
          ...(ownerId ? { OwnerId: ownerId } : {}),
        }).id,
      // A note is a completed Task of our integration user; a follow-up is assigned to someone else.
      tasks: (id) =>
        ours(id)
          .filter((t) => t.values.get('OwnerId') !== sf.store.userId)
          .map((t) => ({
            id: t.id,
            noteId: t.id,
            ownerId: String(t.values.get('OwnerId') ?? ''),
            status: String(t.values.get('Status') ?? ''),
            priority: String(t.values.get('Priority') ?? ''),
            due: String(t.values.get('ActivityDate') ?? ''),
          })),
      notes: (id) => ours(id).filter((t) => t.values.get('OwnerId') === sf.store.userId).length,
      complete: (task) => void sf.store.update('Task', task.id, { Status: 'Completed' }),
      remove: (task) => sf.store.delete('Task', task.id),
    };
  },
};

const FOLLOW_UPS: FollowUpSettings = {
  taskTypes: [...SIGNAL_FILTER_TYPES],
  priority: {},
  dueDays: 3,
  fallbackOwners: {},
  sweepMinutes: 0,
  dismissed: ['deleted'],
};

for (const crm of [hubspot, salesforce]) {
  describe(`follow-up tasks on ${crm.name}`, () => {
    let running: TestService;
    let sandbox: ReturnType<CrmUnderTest['attach']>;
    let bi: RunningBuyerIntelSandbox;
    let service: Service;
    let base: string;
    let prefix: string;
    let redis: Redis;

    beforeAll(async () => {
      running = await startTestService({
        name: 'e2e-followups',
        without: crm.kind === 'salesforce' ? [] : ['salesforce'],
        fields: true,
        startWorker: true,
        worker: { concurrency: 4, writeBatchWaitMs: 20 },
        settings: (settings) => ({
          ...settings,
          signals: { ...settings.signals, period: 'LastTwoYears', maxNotesPerRun: 50 },
          followUps: FOLLOW_UPS,
          api: { apiKeys: [API_KEY] },
        }),
      });
      ({ bi, service, base, prefix } = running);
      sandbox = crm.attach(running);
      redis = new Redis(running.redisUrl);
    }, 60_000);

    afterAll(async () => {
      redis?.disconnect();
      await running?.close();
    });

    async function refresh(accountId: string): Promise<EnrichResult> {
      const windows = await redis.keys(`${prefix}:refresh-window:*`);
      if (windows.length) await redis.del(...windows);
      const res = await fetch(`${base}/api/refresh`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ crm: crm.kind, accountId }),
      });
      expect(res.status).toBe(202);
      const { jobId } = (await res.json()) as { jobId: string };
      lastJobId = jobId;
      await completedJob(service, jobId);
      const job = await service.queue.getJob(jobId);
      const result = job?.returnvalue as EnrichResult | EnrichResult[] | undefined;
      return (Array.isArray(result) ? result[0] : result) as EnrichResult;
    }

    async function sweep(): Promise<Record<string, number>> {
      const job = await service.maintenanceQueue.add(FOLLOW_UP_SWEEP_JOB, {}, { attempts: 1 });
      const deadline = Date.now() + 20_000;
      for (;;) {
        const state = await service.maintenanceQueue.getJobState(job.id ?? '');
        if (state === 'completed')
          return (await service.maintenanceQueue.getJob(job.id ?? ''))?.returnvalue as Record<string, number>;
        if (state === 'failed') throw new Error('the sweep failed');
        if (Date.now() > deadline) throw new Error('the sweep did not finish');
        await new Promise((r) => setTimeout(r, 25));
      }
    }

    /** The row's status as the provider's feed of the buyer's signals shows it. */
    async function rowStatus(buyerId: string, rowId: string): Promise<string | undefined> {
      const { client } = clientFor(bi);
      for (const status of ['New', 'Actioned', 'NotInterested'] as const) {
        const page = await client.listRecentBuyerSignals({
          buyerId,
          status: [status],
          relativeDatePeriodFrom: 'LastTwoYears',
          pageSize: 100,
        });
        if (page.result.some((s) => s.row.rowId === rowId)) return status;
      }
      return undefined;
    }

    let owned: string;
    let buyerId: string;
    let lastJobId = '';
    let firstJobId = '';
    let tasks: CrmTask[];

    it('puts every new signal of an owned account in its owner’s queue as one open task, never a second', async () => {
      owned = sandbox.create('City of Austin', 'TX', sandbox.owner);
      const first = await refresh(owned);
      firstJobId = lastJobId;
      expect(first.status).toBe('enriched');
      buyerId = first.match.buyerId ?? '';
      expect(first.notes.created.length).toBeGreaterThan(1);
      tasks = sandbox.tasks(owned);
      expect(tasks).toHaveLength(first.notes.created.length);
      expect(sandbox.notes(owned)).toBe(0);
      const today = new Date().toISOString().slice(0, 10);
      for (const task of tasks) {
        expect(task.ownerId).toBe(sandbox.owner);
        expect(task.status).toBe(crm.openStatus);
        expect(crm.priorities).toContain(task.priority);
        // An RFP's own due date when it has one not yet past, else three days from now: never past.
        expect(String(task.due).slice(0, 10) >= today).toBe(true);
      }

      // Re-enrichments, and one after Redis lost our ledger of what is on the account: the CRM answers.
      expect((await refresh(owned)).notes.created).toEqual([]);
      const ledger = await redis.keys(`${prefix}:notes:*`);
      if (ledger.length) await redis.del(...ledger);
      expect((await refresh(owned)).notes.created).toEqual([]);
      expect(
        sandbox
          .tasks(owned)
          .map((t) => t.id)
          .sort(),
      ).toEqual(tasks.map((t) => t.id).sort());
    }, 60_000);

    it('keeps notes on an account without an owner (no fallback owner configured)', async () => {
      const unowned = sandbox.create('City of Austin', 'TX');
      const result = await refresh(unowned);
      expect(result.notes.created.length).toBeGreaterThan(0);
      expect(sandbox.tasks(unowned)).toEqual([]);
      expect(sandbox.notes(unowned)).toBe(result.notes.created.length);
    }, 30_000);

    it('turns a completed task’s row Actioned and a deleted one’s NotInterested within one sweep, once', async () => {
      const [done, dropped, open] = tasks;
      if (!done || !dropped || !open) throw new Error('three tasks expected');
      const { followUps } = await service.store.open();
      const watched = await followUps.open(crm.kind, service.tenantsOf(crm.kind)[0] ?? '', 100);
      const rowOf = (t: CrmTask) => watched.find((f) => f.taskId === t.noteId)?.rowId ?? '';
      expect(rowOf(done)).not.toBe('');
      expect(await rowStatus(buyerId, rowOf(done))).toBe('New');
      const calls = () => bi.stats.count('setBridgeRowStatus');
      const before = calls();

      expect(await sweep()).toMatchObject({ actioned: 0, notInterested: 0 });
      expect(calls()).toBe(before);

      sandbox.complete(done);
      sandbox.remove(dropped);
      expect(await sweep()).toMatchObject({ actioned: 1, notInterested: 1, failed: 0 });
      expect(await rowStatus(buyerId, rowOf(done))).toBe('Actioned');
      expect(await rowStatus(buyerId, rowOf(dropped))).toBe('NotInterested');
      expect(await rowStatus(buyerId, rowOf(open))).toBe('New');
      expect(calls()).toBe(before + 2);
      expect(bi.statusChanges.filter((c) => c.rowId === rowOf(done))).toMatchObject([
        { from: 'New', to: 'Actioned' },
      ]);

      // Once: later sweeps send nothing more, and the closures are on the account's write history.
      expect(await sweep()).toMatchObject({ actioned: 0, notInterested: 0 });
      expect(calls()).toBe(before + 2);
      const history = await fetch(
        `${base}/api/accounts/${crm.kind}/${encodeURIComponent(owned)}/history?limit=200`,
        { headers: { authorization: `Bearer ${API_KEY}` } },
      );
      expect(history.status).toBe(200);
      const closed = JSON.stringify(await history.json()).match(/set (Actioned|NotInterested)/g) ?? [];
      expect(closed.sort()).toEqual(['set Actioned', 'set NotInterested']);
    }, 60_000);

    it('takes its tasks back with an undo of the job that made them; the sweep reads that as no dismissal', async () => {
      const left = sandbox.tasks(owned);
      expect(left.length).toBeGreaterThan(0);
      const res = await fetch(`${base}/api/undo`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ job: firstJobId }),
      });
      expect(res.status).toBe(202);
      const { runId } = (await res.json()) as { runId: string };
      const deadline = Date.now() + 20_000;
      for (;;) {
        const run = await fetch(`${base}/api/runs/${runId}`, {
          headers: { authorization: `Bearer ${API_KEY}` },
        });
        if (((await run.json()) as { finishedAt?: string }).finishedAt) break;
        if (Date.now() > deadline) throw new Error('the undo did not finish');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(sandbox.tasks(owned)).toEqual([]);
      const calls = bi.stats.count('setBridgeRowStatus');
      expect(await sweep()).toMatchObject({ actioned: 0, notInterested: 0 });
      expect(bi.stats.count('setBridgeRowStatus')).toBe(calls);
    }, 60_000);
  });
}
