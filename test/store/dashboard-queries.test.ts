// The dashboard's counters (migration 0015) on PGlite and on PostgreSQL: the review backlog per day
// follows accounts into review, across days and out of it again, and the notes per week count what was
// written, in the week it was written, with zeros for the weeks without any.
import { expect, it } from 'vitest';
import type { OutcomeRecord } from '../../src/store/outcome-rows.ts';
import { describeEachDatabase, migratedStore } from '../helpers/databases.ts';

const NOW = new Date('2026-12-02T12:00:00.000Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000);

const outcome = (accountId: string, status: OutcomeRecord['status'], at: Date): OutcomeRecord => ({
  crm: 'hubspot',
  tenant: '7',
  accountId,
  accountName: `Account ${accountId}`,
  state: 'TX',
  status,
  matchedBy: status === 'enriched' ? 'name' : null,
  buyerId: status === 'enriched' ? 'b1' : null,
  buyerName: null,
  buyerType: null,
  confidence: null,
  reason: 'test',
  candidates: [],
  detail: {
    source: 'search',
    fields: [],
    written: {},
    notes: { created: [], alreadyPresent: 0, overCap: 0 },
  },
  at,
});

describeEachDatabase('dashboard counters', (variant) => {
  const opened = migratedStore(variant);

  it('keeps the review backlog per day as accounts enter and leave review', async () => {
    const { outcomes, dashboard } = opened.repos;
    await outcomes.record(outcome('1', 'needs_review', daysAgo(40)));
    await outcomes.record(outcome('2', 'needs_review', daysAgo(10)));
    await outcomes.record(outcome('3', 'needs_review', daysAgo(3)));
    await outcomes.record(outcome('4', 'needs_review', NOW));
    await outcomes.record(outcome('5', 'enriched', NOW));
    expect(await dashboard.reviewBacklog(NOW)).toEqual({
      waiting: 4,
      oldest: daysAgo(40),
      medianDay: daysAgo(10).toISOString().slice(0, 10),
      ages: { today: 1, underWeek: 1, underMonth: 1, older: 1 },
    });
    // The oldest is matched, the one of 3 days ago is searched again today: both move.
    await outcomes.record(outcome('1', 'enriched', NOW));
    await outcomes.record(outcome('3', 'needs_review', NOW));
    expect(await dashboard.reviewBacklog(NOW)).toMatchObject({
      waiting: 3,
      oldest: daysAgo(10),
      ages: { today: 2, underWeek: 0, underMonth: 1, older: 0 },
    });
  });

  it('counts the notes written per week, oldest week first', async () => {
    const { writes, dashboard } = opened.repos;
    const note = (n: number, at: Date) => ({
      crm: 'hubspot',
      tenant: '7',
      accountId: String(n),
      buyerId: null,
      noteId: `n${n}`,
      dedupeKey: `k${n}`,
      title: 'RFP',
      runId: null,
      jobId: null,
      trigger: null,
      at,
    });
    await writes.recordNotes([note(1, daysAgo(0)), note(2, daysAgo(1)), note(3, daysAgo(15))]);
    const weeks = await dashboard.notesPerWeek(12, NOW);
    expect(weeks).toHaveLength(12);
    expect(weeks.at(-1)).toEqual({ week: '2026-11-30', n: 2 });
    expect(weeks.at(-3)).toEqual({ week: '2026-11-16', n: 1 });
    expect(weeks.reduce((a, w) => a + w.n, 0)).toBe(3);
  });
});
