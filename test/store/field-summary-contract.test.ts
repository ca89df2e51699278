// The mapping page's "last written" (migration 0018, src/store/field-summary.ts), on the embedded
// PGlite and on a real PostgreSQL: when we last wrote a value of ours per CRM field of a tenant and how
// many accounts hold ours, as the write history records writes — in one batch, written ahead and
// settled, refused, kept by a person's edit, taken back by an undo, pruned.
import { expect, it } from 'vitest';
import type { FieldWritten } from '../../src/store/field-summary.ts';
import type { FieldWriteEntry } from '../../src/write/journal.ts';
import { describeEachDatabase, migratedStore } from '../helpers/databases.ts';
import { at, fieldWrite, T0 } from '../helpers/history-entries.ts';

const write = (tenant: string, accountId: string, field: string, over: Partial<FieldWriteEntry> = {}) =>
  fieldWrite(accountId, field, { tenant, ...over });

describeEachDatabase('field summary', (variant) => {
  const db = migratedStore(variant);
  const of = async (
    tenant: string,
  ): Promise<Record<string, Omit<FieldWritten, 'crm' | 'tenant' | 'field'>>> =>
    Object.fromEntries(
      (await db.repos.fields.all())
        .filter((r) => r.tenant === tenant)
        .map((r) => [r.field, { lastWritten: r.lastWritten, holding: r.holding }]),
    );

  it('says when each field was last written and how many accounts hold ours, until a person or an undo takes it back', async () => {
    const { writes } = db.repos;
    const t = 'p-summary';
    expect(await of(t)).toEqual({});
    await writes.recordFieldWrites([
      write(t, 'a1', 'population'),
      write(t, 'a2', 'population', { at: at(5) }),
      write(t, 'a3', 'population', { result: 'error', error: 'refused', at: at(9) }),
      write(t, 'a1', 'website', { new: 'https://a1.example' }),
      // Provenance is no mapping row.
      write(t, 'a1', 'buyer_intel_status', { kind: 'provenance' }),
    ]);
    expect(await of(t)).toEqual({
      population: { lastWritten: at(5), holding: 2 },
      website: { lastWritten: T0, holding: 1 },
    });

    // Written ahead, then settled: counted once the CRM said yes; a refusal counts for nothing.
    const ids = await writes.recordPendingFieldWrites([
      write(t, 'a3', 'population', { at: at(20) }),
      write(t, 'a4', 'population', { at: at(21) }),
    ]);
    expect((await of(t)).population).toEqual({ lastWritten: at(5), holding: 2 });
    await writes.settleFieldWrites([
      { id: ids[0] as string, result: 'ok', error: null },
      { id: ids[1] as string, result: 'error', error: 'refused' },
    ]);
    expect((await of(t)).population).toEqual({ lastWritten: at(20), holding: 3 });

    // Written again over ours: still one account. A person's edit kept: no longer ours.
    await writes.recordFieldWrites([
      write(t, 'a1', 'population', { old: '100', new: '120', at: at(30) }),
      write(t, 'a2', 'population', {
        old: '999',
        new: '100',
        decision: 'blocked-edited-by-person',
        result: 'not_sent',
        at: at(31),
      }),
    ]);
    expect((await of(t)).population).toEqual({ lastWritten: at(30), holding: 2 });

    // An undo puts the value before back: the write still happened, the account no longer holds ours.
    await writes.recordFieldWrites([
      write(t, 'a1', 'population', { trigger: 'undo', old: '120', new: null, decision: 'undo', at: at(40) }),
      write(t, 'a1', 'website', {
        trigger: 'undo',
        old: 'https://a1.example',
        new: null,
        decision: 'undo',
        at: at(40),
      }),
    ]);
    expect(await of(t)).toEqual({
      population: { lastWritten: at(30), holding: 1 },
      website: { lastWritten: T0, holding: 0 },
    });
    // An undo that kept a person's later edit; then our next write counts again.
    await writes.recordFieldWrites([
      write(t, 'a3', 'population', {
        old: '7',
        new: '100',
        decision: 'undo-kept-edit',
        result: 'not_sent',
        at: at(50),
      }),
    ]);
    expect((await of(t)).population).toEqual({ lastWritten: at(30), holding: 0 });
    await writes.recordFieldWrites([write(t, 'a3', 'population', { old: '7', new: '130', at: at(60) })]);
    expect((await of(t)).population).toEqual({ lastWritten: at(60), holding: 1 });
  });

  it('counts a cleared field as written and holding nothing, and drops what a prune takes away', async () => {
    const { writes } = db.repos;
    const t = 'p-summary-prune';
    const old = new Date('2020-01-01T00:00:00.000Z');
    await writes.recordFieldWrites([
      write(t, 'b1', 'revenue', { at: old }),
      write(t, 'b2', 'revenue', { at: old }),
      write(t, 'b2', 'revenue', { old: '100', new: null, decision: 'clear', at: at(1) }),
      write(t, 'b3', 'revenue', { at: at(2) }),
    ]);
    expect((await of(t)).revenue).toEqual({ lastWritten: at(2), holding: 2 });
    await writes.prune(new Date('2021-01-01T00:00:00.000Z'));
    // b1's only row is gone: the history no longer says it holds ours. "Last written" stays.
    expect((await of(t)).revenue).toEqual({ lastWritten: at(2), holding: 1 });
    await writes.recordFieldWrites([write(t, 'b1', 'revenue', { at: at(3) })]);
    expect((await of(t)).revenue).toEqual({ lastWritten: at(3), holding: 2 });
  });
});
