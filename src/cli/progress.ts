// Backfill and undo progress on stderr, drawn by cli-progress (bars and elapsed time, and scheduled
// plain lines when stderr is not a terminal). On a terminal: a bar for the accounts queued, one for the
// run's accounts the workers finished (each account as its outcome is recorded) with the ETA at their
// recent pace and what holds them back, and the finished accounts by outcome; for an undo, one bar of
// the accounts done with what became of their fields and notes. In a pipe or a log: one plain line
// every few seconds and at the end.
import cliProgress from 'cli-progress';
import type { BackfillOutcomes } from '../backfill/outcomes.ts';

export interface BackfillSnapshot {
  /** The accounts the run will queue: the estimate until the run has queued them all. */
  target: number;
  queued: number;
  outcomes: BackfillOutcomes;
  /** Accounts finished per second lately (backfill/pace.ts); undefined before it is known. */
  perSecond?: number | undefined;
  /** Seconds until the rest finish at that pace; undefined while none finish. */
  etaSeconds?: number | undefined;
  /** The provider holds every worker below the configured rate, in words ("provider throttling, …"). */
  throttled?: string | undefined;
  /** Why the workers do not take the run's jobs now (the CRM's daily allocation), if they do not. */
  paused?: string | undefined;
}

export interface BackfillProgress {
  update(snapshot: BackfillSnapshot): void;
  /** Draws the last state and leaves it on screen. */
  stop(): void;
}

/** Between two plain lines when stderr is not a terminal. */
const PLAIN_EVERY_MS = 10_000;

/**
 * cli-progress's time format ("05s", "01m05s", "02h03m") without the leading zero, and "—" while it
 * has no ETA (before the first finished account, or while none finish).
 */
const time: cliProgress.TimeFormatter = (t, options, roundTo) =>
  typeof t === 'number' && Number.isFinite(t)
    ? cliProgress.Format.TimeFormat(t, { ...options, autopaddingChar: '0' }, roundTo).replace(/^0(?=\d)/, '')
    : '—';

/** The ETA as cli-progress rounds its own (to 5 s past 10 s). */
const etaText = (seconds: number | undefined) =>
  time(seconds === undefined ? Number.NaN : Math.round(seconds), { autopaddingChar: '0' }, 5);

/** " at 7.3 accounts/s" (whole numbers from 10 on); nothing while none finish (the ETA says "—"). */
const paceText = (perSecond: number | undefined) =>
  perSecond === undefined || perSecond <= 0
    ? ''
    : ` at ${perSecond >= 10 ? Math.round(perSecond) : Math.round(perSecond * 10) / 10} accounts/s`;

const counts = (sep: string) =>
  ['{enriched} enriched', '{needs_review} needs review', '{no_match} no match', '{failed} failed'].join(sep);

const common = {
  formatTime: time,
  barsize: 30,
  barCompleteChar: '█',
  barIncompleteChar: '░',
};

const pausedText = (paused: string | undefined) => (paused ? ` — paused: ${paused}` : '');
const throttledText = (throttled: string | undefined) => (throttled ? ` — ${throttled}` : '');

/** What every format shows beside the finished count: the ETA, the pace, what holds the run back. */
const payloadOf = (s: BackfillSnapshot) => ({
  ...s.outcomes,
  queued: s.queued,
  // Not `eta`: cli-progress fills that placeholder itself, from its own average.
  eta_recent: etaText(s.etaSeconds),
  pace: paceText(s.perSecond),
  throttled: throttledText(s.throttled),
  paused: pausedText(s.paused),
});

export function backfillProgress(stream: NodeJS.WriteStream = process.stderr): BackfillProgress {
  return stream.isTTY ? barsOn(stream) : plainLines(stream);
}

function barsOn(stream: NodeJS.WriteStream): BackfillProgress {
  const multi = new cliProgress.MultiBar({ ...common, stream, clearOnComplete: false });
  let bars:
    | { queued: cliProgress.SingleBar; finished: cliProgress.SingleBar; counts: cliProgress.SingleBar }
    | undefined;
  return {
    update(snapshot) {
      const { target, queued, outcomes } = snapshot;
      const payload = payloadOf(snapshot);
      // Created at the first snapshot so that no bar is ever drawn without its numbers.
      bars ??= {
        queued: multi.create(
          target,
          queued,
          {},
          { format: 'queued    {bar} {value}/{total}  {duration_formatted} elapsed' },
        ),
        finished: multi.create(target, outcomes.finished, payload, {
          format: 'finished  {bar} {value}/{total}  ETA {eta_recent}{pace}{throttled}',
        }),
        counts: multi.create(target, outcomes.finished, payload, {
          format: `          ${counts(' · ')}{paused}`,
        }),
      };
      for (const bar of Object.values(bars)) bar.setTotal(target);
      bars.queued.update(queued);
      bars.finished.update(outcomes.finished, payload);
      bars.counts.update(outcomes.finished, payload);
    },
    stop: () => multi.stop(),
  };
}

function plainLines(stream: NodeJS.WriteStream): BackfillProgress {
  const bar = new cliProgress.SingleBar({
    ...common,
    stream,
    noTTYOutput: true,
    notTTYSchedule: PLAIN_EVERY_MS,
    // Off a terminal this only drops the blank line cli-progress would add after the last line.
    clearOnComplete: true,
    format: `backfill: {queued}/{total} queued, {value} finished (${counts(', ')}), {duration_formatted} elapsed, ETA {eta_recent}{pace}{throttled}{paused}`,
  });
  let started = false;
  return {
    update(snapshot) {
      const payload = payloadOf(snapshot);
      if (!started) {
        started = true;
        bar.start(snapshot.target, snapshot.outcomes.finished, payload);
        return;
      }
      bar.setTotal(snapshot.target);
      bar.update(snapshot.outcomes.finished, payload);
    },
    stop: () => bar.stop(),
  };
}

export interface UndoSnapshot {
  /** Accounts done (a resumed undo starts at the ones done before). */
  done: number;
  total: number;
  restored: number;
  skipped: number;
  notesRemoved: number;
  failed: number;
}

const undoCounts = (sep: string) =>
  [
    '{restored} fields restored',
    '{skipped} kept (a person’s edit)',
    '{notesRemoved} notes removed',
    '{failed} failed',
  ].join(sep);

/**
 * An undo's progress on stderr: a bar with its counts on a terminal, else a plain line every 10 s. A dry
 * run (`planning`) counts only the accounts read.
 */
export function undoProgress(
  options: { planning?: boolean } = {},
  stream: NodeJS.WriteStream = process.stderr,
): {
  update(snapshot: UndoSnapshot): void;
  stop(): void;
} {
  // The undo's ETA is cli-progress's own, over its last minute or so of updates.
  const undoCommon = { ...common, etaBuffer: 60 };
  const bar = stream.isTTY
    ? new cliProgress.SingleBar({
        ...undoCommon,
        stream,
        clearOnComplete: false,
        format: options.planning
          ? 'undo --dry-run  {bar} {value}/{total} accounts read  {duration_formatted} elapsed, ETA {eta_formatted}'
          : `undo  {bar} {value}/{total} accounts  ${undoCounts(' · ')}  {duration_formatted} elapsed, ETA {eta_formatted}`,
      })
    : new cliProgress.SingleBar({
        ...undoCommon,
        stream,
        noTTYOutput: true,
        notTTYSchedule: PLAIN_EVERY_MS,
        clearOnComplete: true,
        format: options.planning
          ? 'undo --dry-run: {value}/{total} accounts read, {duration_formatted} elapsed, ETA {eta_formatted}'
          : `undo: {value}/{total} accounts, ${undoCounts(', ')}, {duration_formatted} elapsed, ETA {eta_formatted}`,
      });
  let started = false;
  return {
    update({ done, total, ...counts }) {
      if (!started) {
        started = true;
        bar.start(total, done, counts);
        return;
      }
      bar.setTotal(total);
      bar.update(done, counts);
    },
    stop() {
      // Once, and only for a bar that was drawn.
      if (started) bar.stop();
      started = false;
    },
  };
}
