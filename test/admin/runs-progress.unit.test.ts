// A run reads "finished" only once its work is done, not when its queueing ended (issue 42), and the
// provider's throttling shows only while it runs: the states the Runs list and run page show.
import { describe, expect, it } from 'vitest';
import { etaWords, runProgress } from '../../src/admin/runs-progress.ts';

const at = new Date('2026-12-02T10:00:00Z');
const outcomes = (enriched: number, error = 0) => ({ enriched, needs_review: 0, no_match: 0, error });
const throttled = { ratePerSecond: 2.5, throttled: true };

describe('run progress', () => {
  it('is running while queued accounts lack an outcome, even after queueing ended', () => {
    const run = { id: '1', counts: { queued: 40 }, startedAt: at, finishedAt: at };
    const p = runProgress(run, outcomes(10), throttled, at.getTime() + 60_000);
    expect(p).toMatchObject({ state: 'running', done: 10, total: 40, perMinute: 10, etaSeconds: 180 });
    expect(p.throttled).toBe(true);
    expect(etaWords(p.etaSeconds)).toBe('about 3 min');
  });
  it('is finished once every account has an outcome, and no longer throttled', () => {
    const run = { id: '1', counts: { queued: 40 }, startedAt: at, finishedAt: at };
    const p = runProgress(run, outcomes(39, 1), throttled);
    expect(p).toMatchObject({ state: 'finished', throttled: false, etaSeconds: null });
  });
  it('is failed when every account failed, running while a backfill still queues', () => {
    expect(
      runProgress({ id: '1', counts: { queued: 2 }, startedAt: at, finishedAt: at }, outcomes(0, 2), null)
        .state,
    ).toBe('failed');
    expect(
      runProgress({ id: '1', counts: { queued: 2 }, startedAt: at, finishedAt: null }, outcomes(2), null)
        .state,
    ).toBe('running');
  });
});
