// Undo end to end on HubSpot and on Salesforce with Tasks and with ContentNotes (their emulators, real
// HTTP, real Redis, the worker): an account enriched by a refresh, then a person edits one of our
// fields; POST /api/undo's dry run shows exactly what would go back and what would be kept; the undo
// (queued, run by the worker) keeps the person's value, clears what we wrote into empty fields and
// removes our notes; a second undo changes nothing and writes nothing to the CRM; an undo of the undo
// brings our values back. A CRM-signed caller may undo its own account only.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import type { SalesforceConfig } from '../../connectors/salesforce/config.ts';
import { defaultFieldName } from '../../connectors/salesforce/fields.ts';
import type { ChangeJson } from '../../src/api/history-routes.ts';
import type { EnrichResult } from '../../src/enrich/types.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { eventually } from '../helpers/poll.ts';
import { completedJob } from '../helpers/service.ts';
import { startTestService, type TestService } from '../helpers/start-service.ts';

const API_KEY = `key-${randomBytes(16).toString('hex')}`;
const POPULATION = DEFAULT_MAPPING.fields.find((f) => f.attribute === 'Population')?.property ?? '';
/** Writes to the CRM, by the emulators' operation names. */
const WRITES = /update|archive|delete|create/i;

interface CrmUnderTest {
  name: string;
  kind: 'hubspot' | 'salesforce';
  /** How the Salesforce app keeps our notes. */
  notes?: 'task' | 'content-note';
  /** The CRM's emulator, as the test service started it. */
  attach(running: TestService): {
    create(name: string, state: string): string;
    edit(id: string, field: string, value: string): void;
    read(id: string, field: string): string | null;
    /** Our notes (Tasks, ContentNotes) still on the account. */
    noteIds(id: string): string[];
    writeCalls(): number;
  };
}

const writeCount = (stats: { toJSON(): Record<string, Record<string, number>> }) =>
  Object.entries(stats.toJSON())
    .filter(([op]) => WRITES.test(op))
    .reduce((n, [, byStatus]) => n + Object.values(byStatus).reduce((a, b) => a + b, 0), 0);

const hubspot: CrmUnderTest = {
  name: 'HubSpot',
  kind: 'hubspot',
  attach({ hs }) {
    return {
      create: (name, state) => hs.store.createCompany({ name, state }, { source: 'CRM_UI' }).id,
      edit: (id, field, value) => void hs.store.updateCompany(id, { [field]: value }, { source: 'CRM_UI' }),
      read: (id, field) => hs.store.getCompany(id)?.values.get(field) ?? null,
      noteIds: (id) =>
        hs.store
          .notesOf(id)
          .filter((n) => !n.archived)
          .map((n) => n.id),
      writeCalls: () => writeCount(hs.stats),
    };
  },
};

const salesforce = (notes: 'task' | 'content-note'): CrmUnderTest => ({
  name: `Salesforce (${notes === 'task' ? 'Tasks' : 'ContentNotes'})`,
  kind: 'salesforce',
  notes,
  attach({ sf }) {
    if (!sf) throw new Error('the Salesforce emulator is not running');
    return {
      create: (name, state) => sf.store.create('Account', { Name: name, BillingState: state }).id,
      edit: (id, field, value) => void sf.store.update('Account', id, { [defaultFieldName(field)]: value }),
      read: (id, field) => {
        const v = sf.store.find('Account', id).values.get(defaultFieldName(field));
        // Salesforce keeps a DateTime as …000+0000; the connector reads it back as the ISO …Z we wrote.
        return v === null || v === undefined ? null : String(v).replace(/\.(\d{3})\+0000$/, '.$1Z');
      },
      noteIds: (id) =>
        notes === 'task'
          ? sf.store
              .list('Task')
              .filter((t) => t.values.get('WhatId') === id)
              .map((t) => t.id)
          : sf.store
              .list('ContentDocumentLink')
              .filter((l) => l.values.get('LinkedEntityId') === id)
              .map((l) => String(l.values.get('ContentDocumentId'))),
      writeCalls: () => writeCount(sf.stats),
    };
  },
});

for (const crm of [hubspot, salesforce('task'), salesforce('content-note')]) {
  describe(`undo on ${crm.name}`, () => {
    let running: TestService;
    let sandbox: ReturnType<CrmUnderTest['attach']>;
    let service: Service;
    let base: string;
    let prefix: string;
    let redis: Redis;

    beforeAll(async () => {
      running = await startTestService({
        name: 'e2e-undo',
        without: crm.kind === 'salesforce' ? [] : ['salesforce'],
        fields: true,
        startWorker: true,
        worker: { concurrency: 4, writeBatchWaitMs: 20 },
        settings: (settings) => {
          const sfConfig = settings.crms.salesforce as SalesforceConfig | undefined;
          if (sfConfig && crm.notes) sfConfig.app.notes = crm.notes;
          return {
            ...settings,
            signals: { ...settings.signals, period: 'LastTwoYears', maxNotesPerRun: 3 },
            api: { apiKeys: [API_KEY] },
          };
        },
      });
      ({ service, base, prefix } = running);
      sandbox = crm.attach(running);
      redis = new Redis(running.redisUrl);
    }, 60_000);

    afterAll(async () => {
      redis?.disconnect();
      await running?.close();
    });

    const withKey = { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown, headers = withKey) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    async function refresh(accountId: string): Promise<EnrichResult> {
      const windows = await redis.keys(`${prefix}:refresh-window:*`);
      if (windows.length) await redis.del(...windows);
      const queued = await call('POST', '/api/refresh', { crm: crm.kind, accountId });
      expect(queued.status).toBe(202);
      const jobId = String(queued.body.jobId);
      await completedJob(service, jobId);
      return (await call('GET', `/api/jobs/${jobId}`)).body.result as EnrichResult;
    }

    /** POST /api/undo, then the undo run once the worker finished it. */
    async function undo(target: Record<string, unknown>) {
      const queued = await call('POST', '/api/undo', target);
      expect(queued.status).toBe(202);
      const runId = String(queued.body.runId);
      const run = await eventually(
        async () => {
          const run = await call('GET', `/api/runs/${runId}?limit=500`);
          return run.body.finishedAt ? run : undefined;
        },
        `undo run ${runId} finishing`,
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      return run.body as Record<string, unknown> & { writes: Record<string, number> };
    }

    let id: string;
    let written: Record<string, string | null>;
    let undoRunId: string;

    it('takes back an account’s last enrichment but keeps the field a person edited since; the dry run said so', async () => {
      id = sandbox.create('City of Austin', 'TX');
      const result = await refresh(id);
      expect(result.status).toBe('enriched');
      written = result.written;
      const notes = sandbox.noteIds(id);
      expect(notes.length).toBeGreaterThan(0);
      expect(sandbox.read(id, P.status)).toBe('enriched');
      sandbox.edit(id, POPULATION, '1000001');

      const before = sandbox.writeCalls();
      const dry = await call('POST', '/api/undo', {
        account: { crm: crm.kind, accountId: id },
        dryRun: true,
      });
      expect(dry.status).toBe(200);
      expect(dry.body).toMatchObject({ dryRun: true, total: 1, planned: 1, complete: true });
      const [plan] = dry.body.accounts as {
        fields: { field: string; now: string | null; before: string | null; action: string }[];
        notes: { noteId: string }[];
      }[];
      const planned = new Map(plan?.fields.map((f) => [f.field, f]));
      expect(planned.get(POPULATION)).toMatchObject({ now: '1000001', action: 'skip' });
      expect(planned.get(P.status)).toMatchObject({ now: 'enriched', before: null, action: 'restore' });
      expect(plan?.notes.map((n) => n.noteId).sort()).toEqual([...notes].sort());
      const fields = Object.keys(written).length;
      expect(dry.body.totals).toMatchObject({
        restore: fields - 1,
        skip: 1,
        unchanged: 0,
        notes: notes.length,
      });
      expect(sandbox.writeCalls()).toBe(before);
      expect(sandbox.noteIds(id)).toHaveLength(notes.length);

      const run = await undo({ account: { crm: crm.kind, accountId: id } });
      undoRunId = String(run.id);
      expect(run).toMatchObject({ kind: 'undo', counts: { accounts: 1, restored: fields - 1, skipped: 1 } });
      expect(run.writes).toMatchObject({
        fieldsWritten: fields - 1,
        fieldsSkipped: 1,
        notesRemoved: notes.length,
      });
      // The person's value survives; every field we had filled is empty again, and our notes are gone.
      expect(sandbox.read(id, POPULATION)).toBe('1000001');
      for (const field of Object.keys(written))
        if (field !== POPULATION) expect([field, sandbox.read(id, field)]).toEqual([field, null]);
      expect(sandbox.noteIds(id)).toEqual([]);

      const history = await call('GET', `/api/accounts/${crm.kind}/${id}/history?limit=500`);
      const [latest] = history.body.changes as ChangeJson[];
      expect(latest).toMatchObject({ runId: undoRunId, run: { kind: 'undo' }, trigger: 'undo' });
      expect(latest?.fields.find((f) => f.field === POPULATION)).toMatchObject({
        decision: 'undo-kept-edit',
        result: 'not_sent',
        old: '1000001',
      });
      expect(latest?.fields.find((f) => f.field === P.status)).toMatchObject({
        decision: 'undo',
        result: 'ok',
        old: 'enriched',
        new: null,
      });
      expect(latest?.notes.map((n) => n.action)).toEqual(notes.map(() => 'removed'));
    });

    it('a second undo changes nothing and sends no write to the CRM', async () => {
      const before = sandbox.writeCalls();
      const run = await undo({ account: { crm: crm.kind, accountId: id } });
      expect(run.id).not.toBe(undoRunId);
      expect(run.counts).toMatchObject({ restored: 0, notesRemoved: 0, skipped: 1 });
      expect(run.writes).toMatchObject({ fieldsWritten: 0, notesRemoved: 0 });
      expect(sandbox.writeCalls()).toBe(before);
      expect(sandbox.read(id, POPULATION)).toBe('1000001');
    });

    it('an undo of the undo brings our values back, and still not over the person’s edit', async () => {
      const run = await undo({ run: undoRunId });
      expect(run.counts).toMatchObject({ restored: Object.keys(written).length - 1, skipped: 0 });
      for (const [field, value] of Object.entries(written))
        if (field !== POPULATION) expect([field, sandbox.read(id, field)]).toEqual([field, value]);
      expect(sandbox.read(id, POPULATION)).toBe('1000001');
      expect(sandbox.read(id, P.status)).toBe('enriched');
    });

    if (crm.kind === 'hubspot')
      it('a HubSpot-signed caller may undo its own account, never a run; bad bodies are 400s naming the problem', async () => {
        const signed = (body: unknown) => {
          const timestamp = String(Date.now());
          const url = `${base}/api/undo?portalId=${String(service.tenantsOf('hubspot')[0])}&userId=7`;
          const raw = JSON.stringify(body);
          return fetch(url, {
            method: 'POST',
            body: raw,
            headers: {
              'content-type': 'application/json',
              'x-hubspot-signature-v3': hubspotSignatureV3(
                running.hs.clientSecret,
                'POST',
                url,
                raw,
                timestamp,
              ),
              'x-hubspot-request-timestamp': timestamp,
            },
          }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
        };
        const own = await signed({ account: { crm: 'hubspot', accountId: id }, dryRun: true });
        expect([own.status, own.body.dryRun]).toEqual([200, true]);
        const run = await signed({ run: undoRunId, dryRun: true });
        expect([run.status, run.body.error]).toEqual([403, 'forbidden']);
        const other = await signed({ account: { crm: 'salesforce', accountId: id }, dryRun: true });
        expect([other.status, other.body.error]).toEqual([403, 'forbidden']);

        expect(await call('POST', '/api/undo', { run: '1', job: 'x' })).toMatchObject({
          status: 400,
          body: { error: 'invalid_request', message: 'body (root): give one of run, job or account' },
        });
        expect((await call('POST', '/api/undo', { run: 'abc' })).status).toBe(400);
        expect(await call('POST', '/api/undo', { run: '987654321', dryRun: true })).toMatchObject({
          status: 404,
          body: { error: 'not_found', message: 'no run 987654321' },
        });
        const unauthenticated = await fetch(`${base}/api/undo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(unauthenticated.status).toBe(401);
      });
  });
}
