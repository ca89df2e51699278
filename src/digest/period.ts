// Digest periods: which calendar day, week or month a run belongs to, read in the schedule's time zone
// from the run's *scheduled* time, so every retry (and a `digest --now` in the same week) lands in the
// same period and its dedupe key. Also picks the signal feeds' `relativeDatePeriodFrom` that covers a
// window, since the API filters by a relative period and not by a date.
import { CronExpressionParser } from 'cron-parser';
import type { RelativeDatePeriod } from '../buyer-intel/enums.ts';

export type PeriodUnit = 'day' | 'week' | 'month';

export interface Period {
  unit: PeriodUnit;
  /** `day-2026-11-16`, `week-2026-11-16` (the Monday), `month-2026-11`: part of the dedupe key. */
  id: string;
  /** For people: `2026-11-16`, `week of 2026-11-16`, `November 2026`. */
  label: string;
}

const DAY = 86_400_000;

/** The calendar date of an instant in a time zone. */
export function localDate(at: Date, tz: string): { year: number; month: number; day: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { year: get('year'), month: get('month'), day: get('day') };
}

const pad = (n: number) => String(n).padStart(2, '0');
const ymd = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;

/** The period (of `unit`, in `tz`) that holds the instant `at`. Weeks start on Monday (ISO). */
export function periodOf(at: Date, tz: string, unit: PeriodUnit): Period {
  const { year, month, day } = localDate(at, tz);
  const date = new Date(Date.UTC(year, month - 1, day));
  if (unit === 'day') return { unit, id: `day-${ymd(date)}`, label: ymd(date) };
  if (unit === 'week') {
    const monday = new Date(date.getTime() - ((date.getUTCDay() + 6) % 7) * DAY);
    return { unit, id: `week-${ymd(monday)}`, label: `week of ${ymd(monday)}` };
  }
  const monthName = new Intl.DateTimeFormat('en-US', { month: 'long', timeZone: 'UTC' }).format(date);
  return { unit, id: `month-${year}-${pad(month)}`, label: `${monthName} ${year}` };
}

/**
 * The days a digest covers, for people, in the schedule's time zone: `2026-11-09 to 2026-11-16`, or
 * one date when the window starts and ends on the same day. The subject and the text both say this,
 * so they never name two different spans (a first digest looks back further than one period).
 */
export function windowLabel(since: Date, until: Date, tz: string): string {
  const day = (at: Date) => {
    const { year, month, day: d } = localDate(at, tz);
    return `${year}-${pad(month)}-${pad(d)}`;
  };
  return day(since) === day(until) ? day(until) : `${day(since)} to ${day(until)}`;
}

/**
 * The largest calendar unit that never holds two scheduled runs: a weekly cron gives weeks, a daily or
 * twice-weekly one days, a monthly one months. (A cron firing more than daily still gives days: the
 * day's first run writes the digest, the later ones find it written.)
 */
export function periodUnitOf(pattern: string, tz: string, from: Date = new Date()): PeriodUnit {
  const cron = CronExpressionParser.parse(pattern, { tz, currentDate: from });
  let previous = cron.next().getTime();
  let minGap = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 12; i++) {
    const next = cron.next().getTime();
    minGap = Math.min(minGap, next - previous);
    previous = next;
  }
  // Allow an hour of slack for daylight-saving shifts.
  if (minGap >= 28 * DAY - 3_600_000) return 'month';
  if (minGap >= 7 * DAY - 3_600_000) return 'week';
  return 'day';
}

const PERIODS: readonly { period: RelativeDatePeriod; days: number }[] = [
  { period: 'LastOneDay', days: 1 },
  { period: 'LastSevenDays', days: 7 },
  { period: 'LastThirtyDays', days: 30 },
  { period: 'LastSixtyDays', days: 60 },
  { period: 'LastThreeMonths', days: 89 },
  { period: 'LastSixMonths', days: 181 },
  { period: 'LastNineMonths', days: 273 },
  { period: 'LastYear', days: 365 },
  { period: 'LastTwoYears', days: 730 },
];

/**
 * The shortest `relativeDatePeriodFrom` whose start (counted back from the provider's clock, i.e. real
 * time) lies before `windowStart`, with a day of slack: the feeds filter by the signal's date, which
 * can be a little older than the row's `createdAt` we filter on.
 */
export function relativePeriodCovering(windowStart: Date, clock: Date): RelativeDatePeriod {
  const spanDays = (clock.getTime() - windowStart.getTime()) / DAY + 1;
  return PERIODS.find((p) => p.days >= spanDays)?.period ?? 'LastTwoYears';
}
