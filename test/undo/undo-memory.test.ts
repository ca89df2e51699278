// Undo against the in-process CRM and the embedded database, with writes recorded the way the service
// records them (the batched writer and its journal): a person's later edit is kept and reported; an
// undo of writes already taken back finds nothing to do and makes no CRM call; an undo of an undo puts
// our values back; a run stopped after a batch, or killed between its CRM write and its record,
// resumes and takes every account back once, its history complete; a failure mark goes back to the
// value we had written before it; an account's last change is taken back alone.
// The in-memory CRM through the registry (its account ids are checked there): registered first.
import '../helpers/memory-crm.ts';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryConnector } from '../../connectors/memory/connector.ts';
import { type MemoryCrmStore, memoryCrm } from '../../connectors/memory/store.ts';
import type { CrmConnector } from '../../connectors/types.ts';
import { PROVENANCE_FIELDS as P } from '../../src/map/provenance.ts';
import { IntegrationError } from '../../src/shared/errors.ts';
import { accountLockKey, redisAccountLocks } from '../../src/signals/account-lock.ts';
import type { OutcomeRecord } from '../../src/store/outcome-rows.ts';
import type { Repositories, Store } from '../../src/store/store.ts';
import { resolveUndo, type UndoTarget } from '../../src/undo/target.ts';
import { previewUndo, runUndo, type UndoDeps } from '../../src/undo/undo.ts';
import { batchedWrites } from '../../src/write/batched-writes.ts';
import type { FieldReason } from '../../src/write/journal.ts';
import { describeEachDatabase, type Variant } from '../helpers/databases.ts';

const POP = 'buyer_intel_population';
let store: Store;
let repos: Repositories;
let crm: MemoryCrmStore;
let inner: CrmConnector;
/** CRM calls by method, through the connector the undo is given. */
const calls: Record<string, number> = {};
let fault: ((method: string) => void) | undefined;
let connector: CrmConnector;
let drop: () => Promise<void>;

async function setUp(variant: Variant) {
  ({ store, drop } = await variant.fresh());
  await store.migrate();
  repos = await store.open();
  crm = memoryCrm(`undo-${randomUUID().slice(0, 8)}`);
  inner = createMemoryConnector(crm);
  await inner.ensureFields(
    [POP, ...Object.values(P)].map((name) => ({ name, label: name, type: 'string', description: name })),
  );
  const counted =
    <A extends unknown[], R>(method: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      calls[method] = (calls[method] ?? 0) + 1;
      fault?.(method);
      return fn(...args);
    };
  connector = {
    ...inner,
    getAccounts: counted('getAccounts', inner.getAccounts.bind(inner)),
    updateAccounts: counted('updateAccounts', inner.updateAccounts.bind(inner)),
    removeNotes: counted('removeNotes', inner.removeNotes.bind(inner)),
  };
}

const deps = (): UndoDeps => ({
  store,
  connectorFor: () => connector,
  retry: { sleep: async () => {} },
});
const writer = () => batchedWrites({ connector: () => inner, maxWaitMs: 0, journal: repos.writes });

/** One enrichment's writes as the pipeline makes them: mapped and provenance fields, then notes. */
async function enrich(
  accountId: string,
  origin: { runId?: string; jobId?: string; trigger: string },
  values: { population: string; status: string; buyerId: string },
  notes = 2,
  decision = 'write',
): Promise<void> {
  const account = crm.accounts.get(accountId);
  const old = (f: string) => account?.fields.get(f) ?? null;
  const fields: Record<string, FieldReason> = {
    [POP]: { old: old(POP), decision, kind: 'mapped', attribute: 'Population', policy: 'ours' },
    [P.status]: { old: old(P.status), decision: 'provenance', kind: 'provenance' },
    [P.buyerId]: { old: old(P.buyerId), decision: 'provenance', kind: 'provenance' },
  };
  const w = writer();
  const result = await w.writeAccount(
    inner.kind,
    inner.tenant,
    {
      accountId,
      fields: { [POP]: values.population, [P.status]: values.status, [P.buyerId]: values.buyerId },
    },
    { ...origin, buyerId: values.buyerId, fields },
  );
  expect(result.ok).toBe(true);
  for (let i = 0; i < notes; i++)
    await w.createNote(
      inner.kind,
      inner.tenant,
      {
        accountId,
        dedupeKey: `bi-${values.buyerId}-${origin.jobId ?? origin.runId}-${i}`,
        title: `Signal ${i}`,
        body: 'b',
        occurredAt: '2026-01-01T00:00:00Z',
      },
      { ...origin, buyerId: values.buyerId },
    );
}

const key = (accountId: string) => ({ crm: inner.kind, tenant: inner.tenant, accountId });
const matchedOutcome = (accountId: string, buyerId: string): OutcomeRecord => ({
  ...key(accountId),
  accountName: 'Austin',
  state: 'TX',
  status: 'enriched',
  matchedBy: 'name',
  buyerId,
  buyerName: 'City of Austin',
  buyerType: 'City',
  confidence: 0.95,
  reason: 'Matched "City of Austin" (TX) with 0.95',
  candidates: [],
  detail: {
    source: 'search',
    fields: [],
    written: {},
    notes: { created: [], alreadyPresent: 0, overCap: 0 },
  },
});
const field = (id: string, name: string) => crm.accounts.get(id)?.fields.get(name) ?? null;
const notesOn = (id: string) => crm.notesOf(id).length;
const undo = async (target: UndoTarget, signal?: AbortSignal) =>
  runUndo(deps(), await resolveUndo(repos, target), { actor: 'test', signal });

describeEachDatabase('undo, the history', (variant) => {
  beforeAll(() => setUp(variant));
  afterAll(() => drop?.());
  describe('undo on the in-process CRM', () => {
    let backfill: string;
    let a: string;
    let b: string;
    let undoRun: string;

    it('puts the values before back and removes the notes, keeping the field a person changed', async () => {
      backfill = (await repos.runs.create({ kind: 'backfill', label: 'backfill of 2 accounts' })).id;
      a = crm.createAccount({ name: 'Austin' });
      b = crm.createAccount({ name: 'Dallas' });
      await inner.updateAccounts([{ accountId: b, fields: { [POP]: '1200000' } }]);
      await enrich(
        a,
        { runId: backfill, jobId: 'j-a', trigger: 'backfill' },
        { population: '961855', status: 'enriched', buyerId: 'b-1' },
      );
      await enrich(
        b,
        { runId: backfill, jobId: 'j-b', trigger: 'backfill' },
        { population: '1304379', status: 'enriched', buyerId: 'b-2' },
      );
      // A person corrects Austin's population after our write.
      await inner.updateAccounts([{ accountId: a, fields: { [POP]: '975000' } }]);
      // The review queue lists Austin as matched, as the job recorded it.
      await repos.outcomes.record(matchedOutcome(a, 'b-1'));

      const preview = await previewUndo(deps(), await resolveUndo(repos, { kind: 'run', runId: backfill }));
      expect(preview.total).toBe(2);
      expect(preview.totals).toMatchObject({ restore: 5, skip: 1, unchanged: 0, accounts: 2, notes: 4 });
      expect(preview.fields[POP]).toEqual({ restore: 1, skip: 1, unchanged: 0, ours: 0 });
      const austin = preview.accounts.find((p) => p.accountId === a);
      expect(austin?.fields.find((f) => f.field === POP)).toMatchObject({
        current: '975000',
        wrote: '961855',
        before: null,
        action: 'skip',
      });
      // The dry run wrote nothing.
      expect(field(a, P.status)).toBe('enriched');
      expect(notesOn(a)).toBe(2);

      const outcome = await undo({ kind: 'run', runId: backfill });
      undoRun = outcome.runId;
      expect(outcome).toMatchObject({ resumed: false, interrupted: false, pending: 0, total: 2 });
      expect(outcome.counts).toMatchObject({
        accounts: 2,
        restored: 5,
        skipped: 1,
        notesRemoved: 4,
        failed: 0,
      });
      expect(outcome.kept).toEqual([
        expect.objectContaining({ accountId: a, field: POP, current: '975000', before: null }),
      ]);
      expect(field(a, POP)).toBe('975000');
      expect(field(a, P.status)).toBeNull();
      expect(field(a, P.buyerId)).toBeNull();
      expect(field(b, POP)).toBe('1200000');
      expect(notesOn(a) + notesOn(b)).toBe(0);
      // Austin had no match before the backfill: the review queue no longer lists one.
      expect(await repos.outcomes.get(key(a))).toBeNull();

      const run = await repos.runs.get(undoRun);
      expect(run).toMatchObject({
        kind: 'undo',
        label: `undo of run ${backfill} (backfill: backfill of 2 accounts)`,
      });
      expect(run?.finishedAt).not.toBeNull();
      expect(await repos.writes.runChanges(undoRun)).toMatchObject({
        accounts: 2,
        fieldsWritten: 5,
        fieldsSkipped: 1,
        notesRemoved: 4,
      });
      const page = await repos.writes.forAccount({ crm: inner.kind, tenant: inner.tenant, accountId: a });
      const latest = page.events.filter((e) => e.runId === undoRun);
      expect(
        latest.filter((e) => e.type === 'note').every((e) => e.type === 'note' && e.action === 'removed'),
      ).toBe(true);
      expect(latest.find((e) => e.type === 'field' && e.field === POP)).toMatchObject({
        decision: 'undo-kept-edit',
        result: 'not_sent',
        old: '975000',
      });
    });

    it('a second undo of the same run changes nothing and makes no write', async () => {
      for (const k of Object.keys(calls)) delete calls[k];
      const again = await undo({ kind: 'run', runId: backfill });
      expect(again.runId).not.toBe(undoRun);
      expect(again.counts).toMatchObject({ accounts: 2, restored: 0, notesRemoved: 0, notesGone: 0 });
      expect(again.counts.unchanged).toBe(5);
      expect(calls.updateAccounts ?? 0).toBe(0);
      expect(calls.removeNotes ?? 0).toBe(0);
      expect(await repos.writes.runChanges(again.runId)).toMatchObject({
        fieldsWritten: 0,
        notesRemoved: 0,
      });
    });

    it('an undo of the undo puts our values back, and still not over the person’s edit', async () => {
      const back = await undo({ kind: 'run', runId: undoRun });
      expect(back.remarks.join(' ')).toContain('not created again');
      expect(back.counts).toMatchObject({ restored: 5, skipped: 0 });
      expect(field(a, P.status)).toBe('enriched');
      expect(field(a, P.buyerId)).toBe('b-1');
      expect(field(b, POP)).toBe('1304379');
      // …and the review queue lists the matches again, as the fields now say: Austin's row comes
      // back; Dallas (whose job recorded none here) gets one too, its name to come with its next run.
      expect(await repos.outcomes.get(key(a))).toMatchObject({ status: 'enriched', buyerId: 'b-1' });
      expect(await repos.outcomes.get(key(b))).toMatchObject({
        status: 'enriched',
        cohort: 'matched_by_name',
        buyerId: 'b-2',
        accountName: null,
      });
      expect(field(a, POP)).toBe('975000');
    });

    it('an account’s last change is taken back alone, and asking again finds nothing left', async () => {
      const c = crm.createAccount({ name: 'Travis County' });
      await enrich(
        c,
        { jobId: 'j-c1', trigger: 'webhook' },
        { population: '1000', status: 'needs_review', buyerId: 'b-3' },
        1,
      );
      await enrich(
        c,
        { jobId: 'j-c2', trigger: 'refresh' },
        { population: '2000', status: 'enriched', buyerId: 'b-4' },
        1,
      );
      const first = await undo({ kind: 'account', crm: inner.kind, accountId: c });
      expect(first.what).toBe(`${inner.kind} account ${c}'s last change (job j-c2)`);
      expect([field(c, POP), field(c, P.status), field(c, P.buyerId), notesOn(c)]).toEqual([
        '1000',
        'needs_review',
        'b-3',
        1,
      ]);
      const second = await undo({ kind: 'account', crm: inner.kind, accountId: c });
      expect(second.counts).toMatchObject({ restored: 0, notesRemoved: 0 });
      expect([field(c, POP), notesOn(c)]).toEqual(['1000', 1]);
      await expect(
        resolveUndo(repos, { kind: 'account', crm: inner.kind, accountId: 'acc-never' }),
      ).rejects.toThrow(/nothing recorded/);
    });

    it('a value a later write of ours set is not counted as kept for a person (a confirm’s re-enrichment)', async () => {
      const d = crm.createAccount({ name: 'Round Rock' });
      const run = (await repos.runs.create({ kind: 'backfill', label: 'backfill of 1 account' })).id;
      await enrich(
        d,
        { runId: run, jobId: 'j-d1', trigger: 'backfill' },
        {
          population: '1000',
          status: 'needs_review',
          buyerId: 'b-5',
        },
      );
      const confirm = (await repos.runs.create({ kind: 'confirm', label: 'confirm' })).id;
      await enrich(
        d,
        { runId: confirm, jobId: 'j-d2', trigger: 'review' },
        {
          population: '3000',
          status: 'enriched',
          buyerId: 'b-6',
        },
      );
      // A person's edit after both is still theirs.
      await inner.updateAccounts([{ accountId: d, fields: { [POP]: '4444' } }]);
      const plan = await previewUndo(deps(), await resolveUndo(repos, { kind: 'run', runId: run }));
      expect(plan.totals).toMatchObject({ restore: 0, skip: 1, ours: 2 });
      const done = await undo({ kind: 'run', runId: run });
      expect(done.counts).toMatchObject({ restored: 0, skipped: 1, ours: 2 });
      expect((await repos.undo.keptBy(done.runId, 10)).map((k) => k.field)).toEqual([POP]);
      expect([field(d, POP), field(d, P.status), field(d, P.buyerId)]).toEqual(['4444', 'enriched', 'b-6']);
    });

    it('waits for an enrichment holding an account, leaves it for the same undo when it outlasts the wait', async () => {
      const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      const prefix = `undo-lock-${randomUUID()}`;
      const locks = redisAccountLocks({
        redis,
        keyOf: (acc) => accountLockKey(prefix, acc),
        waitMs: 300,
        pollMs: 50,
      });
      try {
        const run = (await repos.runs.create({ kind: 'refresh', label: 'refresh' })).id;
        const d = crm.createAccount({ name: 'Harris County' });
        await enrich(
          d,
          { runId: run, jobId: 'j-d', trigger: 'refresh' },
          {
            population: '4700000',
            status: 'enriched',
            buyerId: 'b-5',
          },
        );
        // An enrichment of the account is running (the enrich worker's lock, another owner).
        const held = accountLockKey(prefix, key(d));
        await redis.set(held, 'job:enrich-1', 'PX', 10_000);
        const first = await runUndo(
          { ...deps(), locks },
          await resolveUndo(repos, { kind: 'run', runId: run }),
          {
            actor: 'test',
          },
        );
        expect(first).toMatchObject({ pending: 1 });
        expect(first.remarks.join(' ')).toContain('1 account was being enriched the whole time');
        expect(field(d, P.status)).toBe('enriched');
        expect(await redis.get(held)).toBe('job:enrich-1'); // never taken from its owner

        await redis.del(held);
        const second = await runUndo(
          { ...deps(), locks },
          await resolveUndo(repos, { kind: 'run', runId: run }),
          {
            actor: 'test',
          },
        );
        expect(second).toMatchObject({ runId: first.runId, resumed: true, pending: 0 });
        expect(field(d, P.status)).toBeNull();
        expect(await redis.keys(`${prefix}:*`)).toEqual([]); // every lock released
      } finally {
        await redis.quit();
      }
    });

    it('a failure mark goes back to the value we wrote before it (its own value before is not known)', async () => {
      const d = crm.createAccount({ name: 'Round Rock' });
      await enrich(
        d,
        { jobId: 'j-d1', trigger: 'webhook' },
        { population: '119468', status: 'enriched', buyerId: 'b-5' },
        0,
      );
      const w = writer();
      const mark = { old: null, decision: 'failure-mark', kind: 'provenance' } as const;
      await w.writeAccount(
        inner.kind,
        inner.tenant,
        { accountId: d, fields: { [P.status]: 'error' } },
        { jobId: 'j-d2', trigger: 'webhook', fields: { [P.status]: mark } },
      );
      await undo({ kind: 'job', jobId: 'j-d2' });
      expect(field(d, P.status)).toBe('enriched');
    });
  });

  describe('an undo stopped or killed midway resumes and takes every account back once', () => {
    const N = 250;
    let run: string;
    const ids: string[] = [];

    beforeAll(async () => {
      run = (await repos.runs.create({ kind: 'backfill', label: `backfill of ${N} accounts` })).id;
      for (let i = 0; i < N; i++) {
        const id = crm.createAccount({ name: `Town ${i}` });
        ids.push(id);
        await enrich(
          id,
          { runId: run, jobId: `bulk-${i}`, trigger: 'backfill' },
          { population: String(i + 1), status: 'enriched', buyerId: `b-${i}` },
          1,
        );
      }
    });

    it('stopped after a batch (Ctrl-C): the same undo resumes the same run', async () => {
      const stop = new AbortController();
      const resolved = await resolveUndo(repos, { kind: 'run', runId: run });
      const first = await runUndo(deps(), resolved, {
        signal: stop.signal,
        onProgress: (p) => p.done > 0 && stop.abort(),
      });
      expect(first).toMatchObject({ interrupted: true, resumed: false });
      expect(first.counts.accounts).toBe(100);
      expect((await repos.runs.get(first.runId))?.finishedAt).toBeNull();

      // Killed between its CRM write and its record: the writes went out, nothing was recorded.
      fault = (method) => {
        if (method === 'removeNotes') throw new IntegrationError('killed', { permanent: true });
      };
      await expect(runUndo(deps(), resolved)).rejects.toThrow('killed');
      fault = undefined;

      const last = await runUndo(deps(), resolved);
      expect(last).toMatchObject({ runId: first.runId, resumed: true, interrupted: false, pending: 0 });
      expect(last.counts).toMatchObject({ accounts: N, restored: 3 * N, notesRemoved: N, failed: 0 });
      for (const id of ids)
        expect([field(id, POP), field(id, P.status), notesOn(id)]).toEqual([null, null, 0]);

      // One restoring write per account and field on the record, the killed attempt's included.
      const restoring: string[] = [];
      let after: string | undefined;
      do {
        const page = await repos.writes.ofRun(first.runId, { limit: 500, after });
        for (const e of page.events)
          if (e.type === 'field' && e.decision === 'undo' && e.result === 'ok')
            restoring.push(`${e.accountId}/${e.field}`);
        after = page.next ?? undefined;
      } while (after);
      expect(restoring).toHaveLength(3 * N);
      expect(new Set(restoring).size).toBe(3 * N);
      expect((await repos.runs.get(first.runId))?.finishedAt).not.toBeNull();
    });
  });

  describe('two processes of the same undo', () => {
    it('one runs it; the second names the holder and stops, or waits and reports the run’s counts', async () => {
      const N = 30;
      const run = (await repos.runs.create({ kind: 'backfill', label: `backfill of ${N}` })).id;
      for (let i = 0; i < N; i++)
        await enrich(
          crm.createAccount({ name: `Hamlet ${i}` }),
          { runId: run, jobId: `two-${i}`, trigger: 'backfill' },
          { population: String(i + 1), status: 'enriched', buyerId: `h-${i}` },
          1,
        );
      // The first runner's first CRM write waits until the others have asked.
      let open!: () => void;
      const gate = new Promise<void>((r) => {
        open = r;
      });
      let entered!: () => void;
      const inside = new Promise<void>((r) => {
        entered = r;
      });
      const gated: CrmConnector = {
        ...connector,
        updateAccounts: async (updates) => {
          entered();
          await gate;
          return connector.updateAccounts(updates);
        },
      };
      const resolved = await resolveUndo(repos, { kind: 'run', runId: run });
      const gatedDeps = { ...deps(), connectorFor: () => gated };
      const first = runUndo(gatedDeps, resolved, { holder: 'host-a pid 1' });
      await inside;
      await expect(runUndo(deps(), resolved, { holder: 'host-b pid 2' })).rejects.toMatchObject({
        code: 'undo_running',
        message: expect.stringContaining('being run by host-a pid 1'),
      });
      const waiting = runUndo(deps(), resolved, { holder: 'host-c pid 3', wait: true });
      open();
      const [a, c] = await Promise.all([first, waiting]);
      expect(c.runId).toBe(a.runId);
      expect(a.counts).toMatchObject({ accounts: N, restored: 3 * N, notesRemoved: N, notesGone: 0 });
      // The waiter reports the run's counts, not its own share (it did nothing).
      expect(c.counts).toEqual(a.counts);
      const stored = await repos.runs.get(a.runId);
      expect(stored?.counts).toMatchObject({ restored: 3 * N, notesRemoved: N, notesGone: 0 });
    });
  });
});
