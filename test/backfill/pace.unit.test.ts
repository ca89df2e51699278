// The pace beside a backfill's progress: accounts per second over the last minute of readings, not
// since the start, and when the count last moved (what `backfill --wait --timeout` measures).
import { describe, expect, it } from 'vitest';
import { RecentPace } from '../../src/backfill/pace.ts';

/** Readings every second: `counts[i]` at i s. */
function paced(counts: number[]): RecentPace {
  const pace = new RecentPace(60_000);
  counts.forEach((count, i) => {
    pace.add(count, i * 1000);
  });
  return pace;
}

describe('the recent pace', () => {
  it('has no pace and no ETA before two readings, nor while nothing finishes', () => {
    expect(paced([]).perSecond()).toBeUndefined();
    expect(paced([5]).etaSeconds(100)).toBeUndefined();
    expect(paced([5, 5, 5]).etaSeconds(100)).toBeUndefined();
    expect(paced([5, 5, 5]).etaSeconds(0)).toBe(0);
  });

  it('is the pace of the last minute: a run that slowed down shows the ETA of its pace now', () => {
    // 10 accounts/s for 5 minutes, then 1 account/s for 2 minutes.
    const counts = Array.from({ length: 301 }, (_, s) => s * 10);
    for (let s = 1; s <= 120; s++) counts.push(3000 + s);
    const pace = paced(counts);
    expect(pace.perSecond()).toBeCloseTo(1);
    expect(pace.etaSeconds(300)).toBeCloseTo(300);
    // Since the start it would have been (3120 / 420 s) ≈ 7.4 accounts/s: an ETA of 40 s, not 5 min.
  });

  it('counts the minute from the reading at or before its start, when the polls are sparse', () => {
    const pace = new RecentPace(60_000);
    pace.add(0, 0);
    pace.add(100, 50_000);
    pace.add(130, 110_000);
    // The readings at 50 s and 110 s span the minute: 30 accounts in 60 s.
    expect(pace.perSecond()).toBeCloseTo(0.5);
  });

  it('moved when the count went up, not when it was read again', () => {
    const pace = new RecentPace();
    expect(pace.movedAt).toBeUndefined();
    pace.add(0, 1_000);
    expect(pace.movedAt).toBe(1_000);
    pace.add(0, 2_000);
    pace.add(7, 3_000);
    pace.add(7, 9_000);
    expect(pace.movedAt).toBe(3_000);
  });
});
