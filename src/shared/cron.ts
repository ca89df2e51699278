// Cron patterns and time zones in configuration, checked at start (a typo fails the start with its
// variable named, not the first scheduled run). In src/shared because both the env configuration and
// the digest settings it reads need them: kept in src/config, they made config and digest import each
// other.
import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';

export const timeZone = z.string().refine(
  (tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be an IANA time zone such as UTC or America/Chicago' },
);

/** A cron pattern, or `off`/empty for "not scheduled" (undefined). */
export const cronOrOff = (fallback: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      const value = v ?? fallback;
      if (value === '' || value.toLowerCase() === 'off') return undefined;
      try {
        CronExpressionParser.parse(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `is not a cron pattern (${(err as Error).message})` });
      }
      return value;
    });
