// The write history's contract, on the embedded PGlite and on a real PostgreSQL: what a batch records
// (one statement), what an account's and a run's history read back (newest first, both kinds of event,
// keyset pages), the last value we wrote per field (the `ours` policy's memory), a run's counts, the
// kept values recorded with a job's outcome, and pruning.
import { expect, it } from 'vitest';
import type { OutcomeRecord } from '../../src/store/outcome-rows.ts';
import { describeEachDatabase, migratedStore } from '../helpers/databases.ts';
import { at, fieldWrite, noteEntry, T0 } from '../helpers/history-entries.ts';

const write = fieldWrite;
const note = noteEntry;

describeEachDatabase('write history', (variant) => {
  const db = migratedStore(variant);

  it('reads an account’s writes and notes back newest first, with the run that made them', async () => {
    const { writes, runs } = db.repos;
    const backfill = await runs.create({
      kind: 'backfill',
      label: 'backfill of 3 accounts',
      actor: 'cli (ops)',
      at: T0,
    });
    await writes.recordFieldWrites([
      write('a1', 'population', { runId: backfill.id, trigger: 'backfill', old: null, new: '100' }),
      write('a1', 'buyer_intel_status', {
        runId: backfill.id,
        trigger: 'backfill',
        kind: 'provenance',
        attribute: null,
        policy: null,
        decision: 'provenance',
        old: null,
        new: 'enriched',
      }),
      write('a2', 'population', { runId: backfill.id }),
    ]);
    await writes.recordNotes([note('a1', 'bi-b1-r1', { runId: backfill.id })]);
    await writes.recordFieldWrites([
      write('a1', 'population', { old: '100', new: '120', at: at(60), jobId: 'job-later' }),
    ]);

    const page = await writes.forAccount({ crm: 'hubspot', tenant: 'p1', accountId: 'a1' });
    expect(page.next).toBeNull();
    expect(
      page.events.map((e) =>
        e.type === 'field' ? [e.type, e.field, e.old, e.new, e.decision, e.runId] : [e.type, e.dedupeKey],
      ),
    ).toEqual([
      ['field', 'population', '100', '120', 'write', null],
      ['note', 'bi-b1-r1'],
      ['field', 'buyer_intel_status', null, 'enriched', 'provenance', backfill.id],
      ['field', 'population', null, '100', 'write', backfill.id],
    ]);
    const [latest, noted] = page.events;
    expect(latest).toMatchObject({ run: null, trigger: 'webhook', jobId: 'job-later', at: at(60) });
    expect(noted).toMatchObject({
      type: 'note',
      noteId: 'n-bi-b1-r1',
      title: 'Signal bi-b1-r1',
      // Who started the run reads with it (the CRM card says "confirmed by …").
      run: { kind: 'backfill', label: 'backfill of 3 accounts', actor: 'cli (ops)' },
    });
    // One job's events (an undo of that job reads them so).
    const ofJob = await writes.forAccount(
      { crm: 'hubspot', tenant: 'p1', accountId: 'a1' },
      { jobId: 'job-later' },
    );
    expect(ofJob.events.map((e) => e.id)).toEqual([latest?.id]);
    expect(page.events[3]).toMatchObject({
      attribute: 'Population',
      kind: 'mapped',
      policy: 'ours',
      result: 'ok',
      error: null,
      buyerId: 'b1',
    });
    // Another account's rows, and another tenant's, stay out.
    expect((await writes.forAccount({ crm: 'hubspot', tenant: 'p2', accountId: 'a1' })).events).toEqual([]);
    expect((await writes.forAccount({ crm: 'salesforce', accountId: 'a1' })).events).toEqual([]);
  });

  it('pages an account’s history by keyset: every event once, in order, to the end', async () => {
    const { writes } = db.repos;
    const account = { crm: 'hubspot', tenant: 'p1', accountId: 'paged' };
    for (let i = 0; i < 7; i++) {
      await writes.recordFieldWrites([write('paged', `f${i}`, { new: String(i) })]);
      if (i % 2) await writes.recordNotes([note('paged', `k${i}`)]);
    }
    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await writes.forAccount(account, { limit: 3, after });
      expect(page.events.length).toBeLessThanOrEqual(3);
      seen.push(...page.events.map((e) => (e.type === 'field' ? e.field : e.dedupeKey)));
      if (!page.next) break;
      after = page.next;
    }
    expect(seen).toEqual(['f6', 'k5', 'f5', 'f4', 'k3', 'f3', 'f2', 'k1', 'f1', 'f0']);
    // Without the tenant (a person at a terminal): every tenant's account of that id.
    await writes.recordFieldWrites([write('paged', 'other', { tenant: 'p9' })]);
    const all = await writes.forAccount({ crm: 'hubspot', accountId: 'paged' }, { limit: 1 });
    expect(all.events[0]).toMatchObject({ tenant: 'p9', field: 'other' });
    await expect(writes.forAccount(account, { after: 'x' })).rejects.toThrow(RangeError);
  });

  it('records a note created again (after an undo removed it) as a second event', async () => {
    const { writes } = db.repos;
    await writes.recordNotes([note('again', 'bi-b1-r7', { noteId: 'n1' })]);
    await writes.recordNotes([note('again', 'bi-b1-r7', { noteId: 'n2' })]);
    const page = await writes.forAccount({ crm: 'hubspot', tenant: 'p1', accountId: 'again' });
    expect(page.events.map((e) => (e.type === 'note' ? e.noteId : e.id))).toEqual(['n2', 'n1']);
  });

  it('remembers the last value we wrote into each mapped field, not a refused or kept one', async () => {
    const { writes } = db.repos;
    const key = { crm: 'hubspot', tenant: 'p1', accountId: 'ours' };
    await writes.recordFieldWrites([
      write('ours', 'population', { new: '100' }),
      write('ours', 'revenue', { new: '5', attribute: 'Revenue' }),
      write('ours', 'website', { new: 'https://a.example' }),
      write('ours', 'buyer_intel_status', { kind: 'provenance', new: 'enriched', decision: 'provenance' }),
    ]);
    await writes.recordFieldWrites([
      write('ours', 'population', { old: '100', new: '120' }),
      // Refused by the CRM: not in the CRM, so not ours.
      write('ours', 'revenue', { old: '5', new: '6', result: 'error', error: '400: bad value' }),
      // An undo that cleared the field: nothing of ours is in it.
      write('ours', 'website', { old: 'https://a.example', new: null, decision: 'undo' }),
    ]);
    await writes.recordFieldWrites([
      write('ours', 'population', {
        old: '999',
        new: '130',
        decision: 'blocked-edited-by-person',
        result: 'not_sent',
      }),
    ]);
    expect(await writes.lastWritten(key)).toEqual({ population: '120', revenue: '5' });
    expect(await writes.lastWritten({ ...key, tenant: 'p2' })).toEqual({});
  });

  it('records a kept value once until it changes', async () => {
    const { writes } = db.repos;
    const kept = (old: string, n = '130') =>
      write('kept', 'population', {
        old,
        new: n,
        decision: 'blocked-edited-by-person',
        result: 'not_sent',
      });
    await writes.recordFieldWrites([kept('999')]);
    await writes.recordFieldWrites([kept('999')]);
    await writes.recordFieldWrites([kept('998')]);
    await writes.recordFieldWrites([kept('998', '140')]);
    const page = await writes.forAccount({ crm: 'hubspot', tenant: 'p1', accountId: 'kept' });
    expect(page.events.map((e) => (e.type === 'field' ? [e.old, e.new, e.result] : []))).toEqual([
      ['998', '140', 'not_sent'],
      ['998', '130', 'not_sent'],
      ['999', '130', 'not_sent'],
    ]);
  });

  it('records the kept values of a job in its outcome’s statement', async () => {
    const outcome: OutcomeRecord = {
      crm: 'hubspot',
      tenant: 'p1',
      accountId: 'with-outcome',
      accountName: 'Town',
      state: 'TX',
      status: 'enriched',
      matchedBy: 'name',
      buyerId: 'b1',
      buyerName: 'Buyer',
      buyerType: 'City',
      confidence: 0.9,
      reason: 'r',
      candidates: [],
      detail: {
        source: 'search',
        fields: [],
        written: {},
        notes: { created: [], alreadyPresent: 0, overCap: 0 },
      },
      jobId: 'j1',
    };
    const entry = write('with-outcome', 'population', {
      old: '5',
      decision: 'blocked-not-empty',
      policy: 'fill-empty',
      result: 'not_sent',
    });
    expect(await db.repos.outcomes.recordCountingShared(outcome, { kept: [entry] })).toEqual({ sharing: 0 });
    expect(await db.repos.outcomes.recordCountingShared(outcome, { kept: [entry] })).toEqual({ sharing: 0 });
    const page = await db.repos.writes.forAccount({
      crm: 'hubspot',
      tenant: 'p1',
      accountId: 'with-outcome',
    });
    expect(page.events).toHaveLength(1);
    expect(page.events[0]).toMatchObject({ decision: 'blocked-not-empty', old: '5', new: '100' });
    expect(
      (await db.repos.outcomes.get({ crm: 'hubspot', tenant: 'p1', accountId: 'with-outcome' }))?.jobId,
    ).toBe('j1');
  });

  it('counts what a run changed and pages its writes', async () => {
    const { writes, runs } = db.repos;
    const run = await runs.create({ kind: 'reenrich', label: 'scheduled re-enrichment 1' });
    const r = { runId: run.id, tenant: 'run' };
    await writes.recordFieldWrites([
      write('r1', 'population', r),
      write('r1', 'revenue', r),
      write('r2', 'population', { ...r, result: 'error', error: '400: no' }),
      write('r3', 'population', { ...r, result: 'not_sent', decision: 'blocked-edited-by-person' }),
      write('r4', 'population', { tenant: 'run' }),
    ]);
    await writes.recordNotes([note('r1', 'x', r), note('r5', 'y', r)]);
    expect(await writes.runChanges(run.id)).toEqual({
      accounts: 4,
      fieldsWritten: 2,
      fieldsFailed: 1,
      fieldsSkipped: 1,
      notesCreated: 2,
      notesRemoved: 0,
    });
    const first = await writes.ofRun(run.id, { limit: 4 });
    const second = await writes.ofRun(run.id, { limit: 4, after: first.next ?? '' });
    expect(second.next).toBeNull();
    const accounts = [...first.events, ...second.events].map((e) => e.accountId);
    expect(accounts).toEqual(['r5', 'r1', 'r3', 'r2', 'r1', 'r1']);
    expect(await writes.runChanges('4242424242')).toEqual({
      accounts: 0,
      fieldsWritten: 0,
      fieldsFailed: 0,
      fieldsSkipped: 0,
      notesCreated: 0,
      notesRemoved: 0,
    });
    expect((await writes.ofRun('not-a-run')).events).toEqual([]);
  });

  it('prunes what was recorded before a date and nothing after', async () => {
    const { writes } = db.repos;
    const old = new Date('2020-01-01T00:00:00.000Z');
    await writes.recordFieldWrites([
      write('pruned', 'population', { at: old }),
      write('pruned', 'revenue', { at: new Date(old.getTime() + 1000) }),
      write('pruned', 'website', { at: new Date('2021-01-01T00:00:00.000Z') }),
    ]);
    await writes.recordNotes([note('pruned', 'old', { at: old })]);
    const before = new Date('2020-06-01T00:00:00.000Z');
    expect(await writes.countBefore(before)).toEqual({ fieldWrites: 2, notes: 1 });
    expect(await writes.prune(before)).toEqual({ fieldWrites: 2, notes: 1 });
    expect(await writes.countBefore(before)).toEqual({ fieldWrites: 0, notes: 0 });
    const left = await writes.forAccount({ crm: 'hubspot', tenant: 'p1', accountId: 'pruned' });
    expect(left.events.map((e) => (e.type === 'field' ? e.field : e.dedupeKey))).toEqual(['website']);
  });
});
