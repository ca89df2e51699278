// The one reading of an HTTP `Retry-After` header (RFC 9110 §10.2.3) for every client: the Buyer
// Intelligence API's, HubSpot's, and any CRM added later. Two readings that disagree (one rounding
// half a second down to nothing, one dropping "0") would make the same answer wait differently
// depending on who asked.

/**
 * No wait read from a header exceeds this: a server's typo ("Retry-After: 99999999") must not park a
 * queue for years, and Node's timers overflow past ~24.8 days. A day covers every documented limit
 * (HubSpot's daily one resets at midnight).
 */
export const RETRY_AFTER_MAX_MS = 24 * 60 * 60_000;

// delay-seconds is 1*DIGIT; a fraction is not in the grammar but some servers send one, and it is
// read rather than ignored (rounded up: waiting a little longer is safe, a little less is refused).
const SECONDS = /^\d+(\.\d+)?$/;
// The three HTTP-date forms a recipient must accept: IMF-fixdate, the obsolete RFC 850 form, and
// asctime (which names no zone: it is GMT by definition, so we say so before Date.parse reads it).
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC_850 = /^[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * The wait a `Retry-After` value asks for, in whole milliseconds (rounded up), at most
 * RETRY_AFTER_MAX_MS. `0` and a date already past mean "now" (0). Absent, empty or unreadable:
 * undefined, so the caller falls back to its own policy.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (SECONDS.test(text)) return bound(Math.ceil(Number(text) * 1000));
  let at = Number.NaN;
  if (IMF_FIXDATE.test(text) || RFC_850.test(text)) at = Date.parse(text);
  else if (ASCTIME.test(text)) at = Date.parse(`${text.replace(/ {2}/, ' 0')} GMT`);
  if (Number.isNaN(at)) return undefined;
  return bound(Math.ceil(at - now));
}

const bound = (ms: number) => Math.min(RETRY_AFTER_MAX_MS, Math.max(0, ms));
